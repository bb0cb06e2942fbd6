package deploytest

import (
	"encoding/json"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd, args string
}

// parseDockerfile splits a Dockerfile into instructions and its comments.
func parseDockerfile(data string) (ins []instruction, comments string) {
	var cur strings.Builder
	for _, line := range strings.Split(data, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			comments += trimmed + "\n"
			continue
		}
		if trimmed == "" && cur.Len() == 0 {
			continue
		}
		if more, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(more + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		ins = append(ins, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return ins, comments
}

// dockerfile is what the tests need from deploy/Dockerfile.
type dockerfile struct {
	stages      []string // base image of each FROM, in order
	buildRun    string   // the RUN that builds capgate
	copies      []string // COPY arguments of the final stage
	user        string
	expose      []string
	entrypoint  []string
	cmd         []string
	healthcheck bool
	comments    string
}

func loadDockerfile(t *testing.T) dockerfile {
	t.Helper()
	ins, comments := parseDockerfile(string(readFile(t, "deploy", "Dockerfile")))
	df := dockerfile{comments: comments}
	for _, in := range ins {
		switch in.cmd {
		case "FROM":
			fields := strings.Fields(in.args)
			for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
				fields = fields[1:]
			}
			df.stages = append(df.stages, fields[0])
			df.copies = nil
		case "RUN":
			if strings.Contains(in.args, "go build") {
				df.buildRun = in.args
			}
		case "COPY":
			df.copies = append(df.copies, in.args)
		case "USER":
			df.user = in.args
		case "EXPOSE":
			df.expose = strings.Fields(in.args)
		case "ENTRYPOINT":
			df.entrypoint = execForm(t, in)
		case "CMD":
			df.cmd = execForm(t, in)
		case "HEALTHCHECK":
			df.healthcheck = true
		}
	}
	return df
}

func execForm(t *testing.T, in instruction) []string {
	t.Helper()
	var argv []string
	if err := json.Unmarshal([]byte(in.args), &argv); err != nil {
		t.Fatalf("%s must use the exec (JSON) form, got %s", in.cmd, in.args)
	}
	return argv
}

// binaryPath is where the final stage puts the binary built by go build
// -o OUT: the destination of COPY --from=… OUT DEST.
func (df dockerfile) binaryPath(t *testing.T) string {
	t.Helper()
	out := flagValue(strings.Fields(df.buildRun), "o")
	for _, c := range df.copies {
		f := strings.Fields(c)
		if len(f) >= 3 && strings.HasPrefix(f[0], "--from=") && f[len(f)-2] == out {
			return f[len(f)-1]
		}
	}
	t.Fatalf("the final stage does not copy the built binary %q", out)
	return ""
}

func TestDockerfileBuild(t *testing.T) {
	df := loadDockerfile(t)
	if len(df.stages) != 2 || df.stages[0] != "golang:1.26" {
		t.Fatalf("stages %v: want golang:1.26, then the runtime image", df.stages)
	}
	if rt := df.stages[1]; !strings.HasPrefix(rt, "gcr.io/distroless/static") && rt != "scratch" {
		t.Errorf("runtime image %s: want distroless static or scratch", rt)
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "-s -w"`, "./cmd/capgate"} {
		if !strings.Contains(df.buildRun, want) {
			t.Errorf("the build does not use %s: %s", want, df.buildRun)
		}
	}
	if uid, err := strconv.Atoi(strings.Split(df.user, ":")[0]); err != nil || uid == 0 {
		t.Errorf("USER %q: want a numeric non-root user", df.user)
	}
	if len(df.entrypoint) != 1 || df.entrypoint[0] != df.binaryPath(t) {
		t.Errorf("ENTRYPOINT %v does not run the built binary %s", df.entrypoint, df.binaryPath(t))
	}
	if df.healthcheck || !strings.Contains(df.comments, "HEALTHCHECK") {
		t.Error("distroless has no shell or HTTP client: no HEALTHCHECK, and a comment saying why")
	}
}

// TestImageAgreesWithDeployments: the compose file and the manifests run
// the image the Dockerfile builds, as its user, on its port, with its
// entrypoint and config path.
func TestImageAgreesWithDeployments(t *testing.T) {
	df := loadDockerfile(t)
	c := loadCompose(t)
	d, k := capgatePod(t)
	uid, _ := strconv.ParseInt(strings.Split(df.user, ":")[0], 10, 64)
	replica := c.Services["capgate-a"]
	if b := replica.Build; b == nil || b.Context != "." || b.Dockerfile != "deploy/Dockerfile" {
		t.Errorf("compose builds %+v, want deploy/Dockerfile in context .", b)
	}
	for name, s := range c.Services {
		if name != "redis" && s.Image != replica.Image {
			t.Errorf("compose service %s runs %s, not %s", name, s.Image, replica.Image)
		}
	}
	if repo(k.Image) != repo(replica.Image) {
		t.Errorf("the Deployment runs %s, compose %s", k.Image, replica.Image)
	}
	if len(k.Command) > 0 && k.Command[0] != df.binaryPath(t) {
		t.Errorf("the Deployment's command %v bypasses the image's binary %s", k.Command, df.binaryPath(t))
	}
	if d.Template.Spec.SecurityContext.RunAsUser != uid {
		t.Errorf("runAsUser %d, the image's user is %d", d.Template.Spec.SecurityContext.RunAsUser, uid)
	}
	port := listenPort(t, "production")
	if !slices.Contains(df.expose, port) || !slices.Contains(df.expose, listenPort(t, "compose")) {
		t.Errorf("EXPOSE %v, the configs listen on %s", df.expose, port)
	}
	if !slices.ContainsFunc(k.Ports, func(p k8sPort) bool { return strconv.Itoa(p.ContainerPort) == port && p.Name == "http" }) {
		t.Errorf("the container port http is not the listener port %s", port)
	}
	cfg := flagValue(df.cmd, "config")
	if flagValue(replica.Command, "config") != cfg || flagValue(k.Args, "config") != cfg {
		t.Errorf("--config: image %s, compose %s, Deployment %s", cfg, flagValue(replica.Command, "config"), flagValue(k.Args, "config"))
	}
}

// repo strips the tag or digest of an image reference.
func repo(image string) string {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

func listenPort(t *testing.T, example string) string {
	t.Helper()
	var cfg configPaths
	decodeYAML(t, &cfg, "deploy", "examples", example, "capgate.yaml")
	_, port, err := net.SplitHostPort(cfg.Listen.Addr)
	if err != nil {
		t.Fatalf("%s listen.addr: %v", example, err)
	}
	return port
}
