package siem

import (
	"strconv"
	"strings"
)

// OCSF classes and categories used.
const (
	classAPIActivity    = 6003
	classAuthentication = 3002
	categoryApplication = 6
	categoryIAM         = 3
)

// OCSF activity ids of API Activity (Authentication's logon is 1 too).
const (
	activityCreate = 1
	activityUpdate = 3
	activityDelete = 4
	activityOther  = 99
)

// apiActivity is the API Activity activity of an event, by its name.
func apiActivity(name string) (int, string) {
	switch {
	case name == "capability.issue", name == "capability.attenuate", name == "capability.delegate",
		name == "approval.requested":
		return activityCreate, "Create"
	case strings.HasSuffix(name, ".revoke"):
		return activityDelete, "Delete"
	case strings.HasPrefix(name, "approval."), name == "admin.freeze", name == "admin.unfreeze":
		return activityUpdate, "Update"
	}
	return activityOther, otherName(name)
}

// otherName names an Other activity after the event's last word:
// "capability.invoke" is "Invoke".
func otherName(name string) string {
	w := name[strings.LastIndexByte(name, '.')+1:]
	if w == "" {
		return "Other"
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// ocsf renders e as an OCSF record.
func (r *Renderer) ocsf(e event) map[string]any {
	word, ok := e.outcome()
	rec := map[string]any{
		"time":        e.time.UnixMilli(),
		"severity_id": 1, "severity": "Informational",
		"status_id": 1, "status": "Success",
		"message": e.name,
		"metadata": map[string]any{
			"version":  OCSFVersion,
			"product":  map[string]any{"name": "capgate", "vendor_name": "capgate", "version": r.version},
			"log_name": e.chain, "sequence": e.seq, "uid": e.chain + ":" + strconv.FormatUint(e.seq, 10),
			"original_time": str(e.raw, "time"),
		},
		"unmapped": map[string]any{"capgate": e.raw},
	}
	if word != "" {
		rec["message"] = e.name + ": " + word
		rec["status_detail"] = word
	}
	if !ok {
		rec["severity_id"], rec["severity"] = 3, "Medium"
		rec["status_id"], rec["status"] = 2, "Failure"
	}
	user := map[string]any{"uid": e.acting()}
	if e.acting() == "" {
		user = nil
	}
	if e.name == "a2e.handshake" {
		r.authentication(e, rec, user)
	} else {
		r.apiActivity(e, rec, user)
	}
	rec["type_uid"] = rec["class_uid"].(int)*100 + rec["activity_id"].(int)
	return rec
}

// authentication fills rec as an Authentication logon to the host.
func (r *Renderer) authentication(e event, rec, user map[string]any) {
	rec["class_uid"], rec["class_name"] = classAuthentication, "Authentication"
	rec["category_uid"], rec["category_name"] = categoryIAM, "Identity & Access Management"
	rec["activity_id"], rec["activity_name"] = activityCreate, "Logon"
	rec["type_name"] = "Authentication: Logon"
	if user == nil {
		user = map[string]any{"name": "unauthenticated"}
	}
	rec["user"] = user
	rec["service"] = map[string]any{"name": nonEmpty(e.target(), "a2e")}
}

// apiActivity fills rec as API Activity on the agent.
func (r *Renderer) apiActivity(e event, rec, user map[string]any) {
	id, name := apiActivity(e.name)
	rec["class_uid"], rec["class_name"] = classAPIActivity, "API Activity"
	rec["category_uid"], rec["category_name"] = categoryApplication, "Application Activity"
	rec["activity_id"], rec["activity_name"] = id, name
	rec["type_name"] = "API Activity: " + name
	actor := map[string]any{"app_name": "capgate"}
	if user != nil {
		actor["user"] = user
	}
	rec["actor"] = actor
	api := map[string]any{"operation": e.name}
	if t := e.target(); t != "" {
		api["service"] = map[string]any{"name": t}
	}
	rec["api"] = api
	rec["src_endpoint"] = map[string]any{"uid": e.chain, "svc_name": "capgate"}
	if c := e.capability(); c != "" {
		rec["resources"] = []any{map[string]any{"uid": c, "type": "capability"}}
	}
}

func nonEmpty(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
