// `certInfo` (TPMS_ATTEST), what the AIK signed: parsed only; the `tpm` verifier checks magic,
// type, extraData and the Name.

/// A TPM2B_NAME's contents: empty, a 4-byte handle, or a digest Name (`nameAlg` + digest).
struct TPMName: Sendable, Hashable {
    /// The Name bytes exactly as carried (without the size prefix).
    let bytes: ArraySlice<UInt8>

    /// Wraps Name bytes.
    /// - Parameter bytes: the bytes after the TPM2B size.
    init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// The leading TPM_ALG_ID if the Name is long enough to be a digest Name (more than 4
    /// bytes; a 4-byte Name is a handle), else `nil`.
    var algorithmID: UInt16? {
        guard bytes.count > 4 else { return nil }
        return bytes.prefix(2).reduce(0) { $0 << 8 | UInt16($1) }
    }

    /// The digest after the algorithm identifier, when `algorithmID` is not `nil`.
    var digest: ArraySlice<UInt8>? {
        guard algorithmID != nil else { return nil }
        return bytes.dropFirst(2)
    }

    /// The hash algorithm of a digest Name, when it is one of the known four and the digest has
    /// that algorithm's length; else `nil`.
    var hashAlgorithm: TPMHashAlgorithm? {
        guard let id = algorithmID, let algorithm = TPMHashAlgorithm(rawValue: id),
            let digest, digest.count == algorithm.digestSize
        else { return nil }
        return algorithm
    }
}

/// TPMS_CLOCK_INFO: the TPM's clock when it signed.
struct TPMClockInfo: Sendable, Hashable {
    /// Milliseconds the TPM has been powered since it was last cleared.
    let clock: UInt64
    /// TPM resets since the last clear.
    let resetCount: UInt32
    /// Restarts since the last reset.
    let restartCount: UInt32
    /// The TPMI_YES_NO `safe` byte as carried: 1 (YES) when `clock` is known never to have
    /// reported a smaller value, 0 (NO) otherwise. Other values are kept, not judged: the W3C
    /// WebAuthn test vectors put filler there, and WebAuthn does not use the field.
    let safe: UInt8
}

/// TPMS_CERTIFY_INFO: what TPM2_Certify attests about an object.
struct TPMCertifyInfo: Sendable, Hashable {
    /// The certified object's Name; for WebAuthn, `nameAlg` + hash of `pubArea`.
    let name: TPMName
    /// The certified object's Qualified Name.
    let qualifiedName: TPMName
}

/// A parsed `certInfo`: the TPMS_ATTEST structure the attestation key signed.
///
/// Parsing does not judge `magic`, `type` or `extraData`; the verifier checks them against
/// §8.3. A TPM_ST_ATTEST_CERTIFY body is parsed; any other type's body is kept unparsed.
struct TPMAttest: Sendable, Hashable {
    /// TPM_GENERATED_VALUE, the `magic` of every structure a TPM signs itself.
    static let generatedValue: UInt32 = 0xFF54_4347
    /// TPM_ST_ATTEST_CERTIFY, the `type` WebAuthn requires.
    static let attestCertifyType: UInt16 = 0x8017

    /// The `attested` union member.
    enum Attested: Sendable, Hashable {
        /// A TPMS_CERTIFY_INFO (type TPM_ST_ATTEST_CERTIFY).
        case certify(TPMCertifyInfo)
        /// The body of any other type, not interpreted.
        case unparsed(ArraySlice<UInt8>)
    }

    /// The `magic` field (should be `generatedValue`).
    let magic: UInt32
    /// The `type` field, a TPM_ST value (should be `attestCertifyType`).
    let type: UInt16
    /// The Qualified Name of the signing key.
    let qualifiedSigner: TPMName
    /// `extraData`: for WebAuthn, the hash of `attToBeSigned` with the `alg` hash.
    let extraData: ArraySlice<UInt8>
    /// The clock information.
    let clockInfo: TPMClockInfo
    /// The TPM vendor's firmware version.
    let firmwareVersion: UInt64
    /// The type-specific body.
    let attested: Attested
    /// The exact bytes parsed; the statement's `sig` is over them.
    let rawBytes: ArraySlice<UInt8>

    /// The certify body, or `nil` when `type` is not TPM_ST_ATTEST_CERTIFY.
    var certifyInfo: TPMCertifyInfo? {
        if case .certify(let info) = attested { return info }
        return nil
    }

    /// Parses a `certInfo`. For a certify structure the whole input must be consumed.
    /// - Parameter bytes: the `certInfo` byte string from the attestation statement.
    /// - Throws: `WebAuthnError` (`attestation`) naming the field that does not parse.
    init(parsing bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var reader = TPMReader(bytes, structure: "certInfo")
        magic = try reader.read(UInt32.self, "magic")
        type = try reader.read(UInt16.self, "type")
        qualifiedSigner = TPMName(bytes: try reader.sized("qualifiedSigner", maximum: TPMLimits.name))
        extraData = try reader.sized("extraData", maximum: TPMLimits.data)
        let clock = try reader.read(UInt64.self, "clockInfo.clock")
        let resetCount = try reader.read(UInt32.self, "clockInfo.resetCount")
        let restartCount = try reader.read(UInt32.self, "clockInfo.restartCount")
        let safe = try reader.read(UInt8.self, "clockInfo.safe")
        clockInfo = TPMClockInfo(clock: clock, resetCount: resetCount, restartCount: restartCount, safe: safe)
        firmwareVersion = try reader.read(UInt64.self, "firmwareVersion")
        if type == Self.attestCertifyType {
            let name = TPMName(bytes: try reader.sized("attested.certify.name", maximum: TPMLimits.name))
            let qualifiedName = TPMName(bytes: try reader.sized("attested.certify.qualifiedName", maximum: TPMLimits.name))
            try reader.finish()
            attested = .certify(TPMCertifyInfo(name: name, qualifiedName: qualifiedName))
        } else {
            attested = .unparsed(reader.remaining)
        }
        rawBytes = bytes
    }

    /// Parses a `certInfo` held in an array.
    /// - Parameter bytes: the `certInfo` byte string.
    /// - Throws: `WebAuthnError` (`attestation`) naming the field that does not parse.
    init(parsing bytes: [UInt8]) throws(WebAuthnError) {
        try self.init(parsing: bytes[...])
    }
}
