package cardsig

// kind is how a field of the v1.0 schema is read and written.
type kind int

const (
	kString   kind = iota // string; written unless ""
	kBool                 // bool; written when true
	kOptBool              // optional bool; written when set, even false
	kStrings              // repeated string
	kMessage              // a message
	kMessages             // repeated message
	kMsgMap               // map<string, message>
	kStrMap               // map<string, string>
	kStruct               // google.protobuf.Struct: any JSON object
)

// field is one field of a message: its JSON name, its proto name (read
// when the JSON name is absent), how it is read and its message.
type field struct {
	json, proto string
	kind        kind
	msg         *message
}

// message is a message of the schema. A oneof message has exactly one of
// its fields set: the first one present, in field order.
type message struct {
	fields []field
	oneof  bool
}

func str(json, proto string) field { return field{json: json, proto: proto, kind: kString} }

// agentCard is the v1.0 AgentCard message of a2a.proto (v1.0.0), without
// its signatures, which the canonical form never holds.
func agentCard() *message {
	stringList := &message{fields: []field{{json: "list", kind: kStrings}}}
	requirement := &message{fields: []field{{json: "schemes", kind: kMsgMap, msg: stringList}}}
	scopes := field{json: "scopes", kind: kStrMap}
	flow := func(fields ...field) *message { return &message{fields: append(fields, scopes)} }
	flows := &message{oneof: true, fields: []field{
		{json: "authorizationCode", proto: "authorization_code", kind: kMessage, msg: flow(
			str("authorizationUrl", "authorization_url"), str("tokenUrl", "token_url"), str("refreshUrl", "refresh_url"),
			field{json: "pkceRequired", proto: "pkce_required", kind: kBool})},
		{json: "clientCredentials", proto: "client_credentials", kind: kMessage, msg: flow(
			str("tokenUrl", "token_url"), str("refreshUrl", "refresh_url"))},
		{json: "implicit", kind: kMessage, msg: flow(str("authorizationUrl", "authorization_url"), str("refreshUrl", "refresh_url"))},
		{json: "password", kind: kMessage, msg: flow(str("tokenUrl", "token_url"), str("refreshUrl", "refresh_url"))},
		{json: "deviceCode", proto: "device_code", kind: kMessage, msg: flow(
			str("deviceAuthorizationUrl", "device_authorization_url"), str("tokenUrl", "token_url"), str("refreshUrl", "refresh_url"))},
	}}
	desc := str("description", "")
	scheme := &message{oneof: true, fields: []field{
		{json: "apiKeySecurityScheme", proto: "api_key_security_scheme", kind: kMessage,
			msg: &message{fields: []field{desc, str("location", ""), str("name", "")}}},
		{json: "httpAuthSecurityScheme", proto: "http_auth_security_scheme", kind: kMessage,
			msg: &message{fields: []field{desc, str("scheme", ""), str("bearerFormat", "bearer_format")}}},
		{json: "oauth2SecurityScheme", proto: "oauth2_security_scheme", kind: kMessage,
			msg: &message{fields: []field{desc, {json: "flows", kind: kMessage, msg: flows}, str("oauth2MetadataUrl", "oauth2_metadata_url")}}},
		{json: "openIdConnectSecurityScheme", proto: "open_id_connect_security_scheme", kind: kMessage,
			msg: &message{fields: []field{desc, str("openIdConnectUrl", "open_id_connect_url")}}},
		{json: "mtlsSecurityScheme", proto: "mtls_security_scheme", kind: kMessage, msg: &message{fields: []field{desc}}},
	}}
	requirements := field{json: "securityRequirements", proto: "security_requirements", kind: kMessages, msg: requirement}
	return &message{fields: []field{
		str("name", ""),
		desc,
		{json: "supportedInterfaces", proto: "supported_interfaces", kind: kMessages, msg: &message{fields: []field{
			str("url", ""), str("protocolBinding", "protocol_binding"), str("tenant", ""), str("protocolVersion", "protocol_version"),
		}}},
		{json: "provider", kind: kMessage, msg: &message{fields: []field{str("url", ""), str("organization", "")}}},
		str("version", ""),
		str("documentationUrl", "documentation_url"),
		{json: "capabilities", kind: kMessage, msg: &message{fields: []field{
			{json: "streaming", kind: kOptBool},
			{json: "pushNotifications", proto: "push_notifications", kind: kOptBool},
			{json: "extensions", kind: kMessages, msg: &message{fields: []field{
				str("uri", ""), desc, {json: "required", kind: kBool}, {json: "params", kind: kStruct},
			}}},
			{json: "extendedAgentCard", proto: "extended_agent_card", kind: kOptBool},
		}}},
		{json: "securitySchemes", proto: "security_schemes", kind: kMsgMap, msg: scheme},
		requirements,
		{json: "defaultInputModes", proto: "default_input_modes", kind: kStrings},
		{json: "defaultOutputModes", proto: "default_output_modes", kind: kStrings},
		{json: "skills", kind: kMessages, msg: &message{fields: []field{
			str("id", ""), str("name", ""), desc, {json: "tags", kind: kStrings}, {json: "examples", kind: kStrings},
			{json: "inputModes", proto: "input_modes", kind: kStrings}, {json: "outputModes", proto: "output_modes", kind: kStrings},
			requirements,
		}}},
		str("iconUrl", "icon_url"),
	}}
}
