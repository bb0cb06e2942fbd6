package redistest

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of masters on loopback, without replicas.
type Cluster struct {
	// Nodes are the cluster's servers.
	Nodes []*Server
	// Addrs are the nodes' addresses.
	Addrs []string
	// Client is a cluster client with go-redis defaults, closed by
	// t.Cleanup.
	Client *redis.ClusterClient

	t testing.TB
}

// StartCluster starts n cluster-enabled nodes (n >= 3), joins them with
// redis-cli --cluster create, and waits until every node reports
// cluster_state:ok with all slots assigned.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	requireRedis(t)
	if n < 3 {
		t.Fatalf("redistest: a cluster needs at least 3 masters, not %d", n)
	}
	c := &Cluster{t: t}
	for range n {
		node := startOn(t, freePort(t, true),
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000")
		c.Nodes = append(c.Nodes, node)
		c.Addrs = append(c.Addrs, node.Addr)
	}
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, node := range c.Nodes {
		if err := waitClusterOK(node.Addr, n); err != nil {
			t.Fatalf("redistest: cluster node %s: %v", node.Addr, err)
		}
	}
	c.Client = c.NewClient(nil)
	return c
}

// NewClient returns a new cluster client, closed by t.Cleanup. A nil opts
// means go-redis defaults; Addrs is always set.
func (c *Cluster) NewClient(opts *redis.ClusterOptions) *redis.ClusterClient {
	o := redis.ClusterOptions{}
	if opts != nil {
		o = *opts
	}
	o.Addrs = c.Addrs
	cc := redis.NewClusterClient(&o)
	c.t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// waitClusterOK polls CLUSTER INFO until the node sees a healthy cluster of
// n nodes with every slot assigned.
func waitClusterOK(addr string, n int) error {
	host, port, _ := strings.Cut(addr, ":")
	want := []string{"cluster_state:ok", "cluster_slots_ok:16384", fmt.Sprintf("cluster_known_nodes:%d", n)}
	deadline := time.Now().Add(30 * time.Second)
	var info string
	for time.Now().Before(deadline) {
		out, err := exec.Command("redis-cli", "-h", host, "-p", port, "cluster", "info").Output()
		info = string(out)
		if err == nil && containsAll(info, want) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not ok after 30s:\n%s", info)
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
