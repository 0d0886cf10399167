import WebAuthnCoding

// The member writers for the library's own documents (the options, a stored challenge's
// extension inputs) over the JSON engine's writer: nil members left out, the WebAuthn types
// written as their JSON forms, and the writer's one refusal (a number JSON cannot carry) as
// `WebAuthnError` `malformed`.

extension JSONTextWriter {
    /// The JSON text of an object of any values (a stored challenge's extension inputs).
    /// - Throws: ``WebAuthnError`` `malformed` for a number JSON cannot carry.
    static func text(_ members: [String: JSONValue]) throws(WebAuthnError) -> String {
        var writer = JSONTextWriter()
        try writer.anyObject(members)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// An object of any values, its refusal (a number JSON cannot carry) as the library's error.
    private mutating func anyObject(_ members: [String: JSONValue]) throws(WebAuthnError) {
        do { try object(members) } catch { throw WebAuthnError(.malformed, "\(error)") }
    }

    /// A member whose value is present; nothing for nil.
    mutating func member<Value>(
        _ name: String, _ value: Value?, _ write: (inout JSONTextWriter, Value) throws(WebAuthnError) -> Void
    ) throws(WebAuthnError) {
        guard let value else { return }
        key(name)
        try write(&self, value)
    }

    mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func member(_ name: String, _ value: (some OpenStringValue)?) {
        member(name, value?.rawValue)
    }

    mutating func member(_ name: String, _ values: [some OpenStringValue]?) throws(WebAuthnError) {
        try member(name, values) { (writer, values) throws(WebAuthnError) in
            try writer.array(values) { (writer, value) throws(WebAuthnError) in writer.string(value.rawValue) }
        }
    }

    mutating func member(_ name: String, _ value: UInt32?) {
        guard let value else { return }
        key(name)
        integer(Int(value))
    }

    mutating func member(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    mutating func member(_ name: String, _ extensions: [String: JSONValue]?) throws(WebAuthnError) {
        guard let extensions else { return }
        key(name)
        try anyObject(extensions)
    }

    mutating func member(_ name: String, _ descriptors: [PublicKeyCredentialDescriptorJSON]?) throws(WebAuthnError) {
        try member(name, descriptors) { (writer, descriptors) throws(WebAuthnError) in
            try writer.array(descriptors) { (writer, descriptor) throws(WebAuthnError) in
                try writer.object { (writer) throws(WebAuthnError) in
                    writer.member("id", descriptor.id.base64URL)
                    try writer.member("transports", descriptor.transports)
                    writer.member("type", descriptor.type)
                }
            }
        }
    }
}
