package admin

import (
	"context"
	"log/slog"
)

// RevokeCapability revokes capability id for the operator admin (a
// principal id), exactly as POST /admin/revoke with a capabilityId does:
// the capability's revocation id is revoked, so every descendant dies with
// it, and the action is one admin.revoke audit event. Other operator
// surfaces, such as the console, revoke through it. The error is the
// admin API's: capindex.ErrNotFound, captoken.ErrInvalid, or a store error.
func (a *API) RevokeCapability(ctx context.Context, admin, id string) error {
	_, err := a.revokeAudited(ctx, admin, revokeRequest{CapabilityID: id})
	return err
}

// revokeAudited runs one revocation and records it in the audit trail.
func (a *API) revokeAudited(ctx context.Context, admin string, req revokeRequest) (map[string]any, error) {
	res, err := a.revokeAdmin(ctx, req)
	a.audit(ctx, EventAdminRevoke, slog.String("admin", admin), slog.Any("request", req),
		slog.Any("result", res), slog.String("decision", decisionWord(err)))
	return res, err
}
