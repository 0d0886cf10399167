// TPM manufacturer identifiers as a `tpm` attestation certificate carries them: the
// TPMManufacturer attribute (2.23.133.2.1) in the Subject Alternative Name directory name holds
// "id:" followed by eight hex digits, the TPM_PT_MANUFACTURER value (TCG EK Credential Profile
// §3.2.9). That value is the vendor's four-character ASCII code, padded with NUL (or space), so
// "id:494E5443" is "INTC" (Intel).
//
// The form: "id:" and exactly eight hex digits. The profile asks for the characters 0-9 and A-F,
// but the hex digits are compared without regard to case: the registry itself writes IBM as
// 0x49 0x42 0x4d 0x00, and Qualcomm fTPMs (Snapdragon Windows PCs) send "id:51434f4d", which
// the other relying-party libraries accept after normalizing. Anything else ("ID:", "id:4E5443",
// "4E544300", "id: 4E544300") is refused.
//
// The vendor table is the "TPM Capabilities Vendor ID" list of the TCG TPM Vendor ID Registry
// (Family 1.2 and 2.0); each entry's hex decodes to the vendor code noted beside it. Two test
// identifiers, which are not registry entries, are kept apart from it (see `testIDs`).

/// Looks up TPM manufacturer identifiers ("id:XXXXXXXX") from an attestation certificate.
enum TPMManufacturer {
    /// The identifier FIDO Alliance conformance tools use for their test TPMs.
    /// It is not a TCG registry entry; a deployment may refuse it outside testing.
    static let fidoConformanceTestingID = "id:FFFFF1D0"
    /// The identifier the W3C WebAuthn Level 3 test vectors put in their TPM AIK certificate
    /// (TPM_PT_MANUFACTURER 0: no vendor code). It is not a TCG registry entry.
    static let webAuthnTestVectorsID = "id:00000000"

    /// The test identifiers (hex without "id:") `isKnown(_:)` accepts besides the registry:
    /// what the FIDO conformance tools and the W3C WebAuthn L3 test vectors send.
    static let testIDs: [String: String] = [
        "FFFFF1D0": "FIDO Alliance conformance testing",
        "00000000": "W3C WebAuthn test vectors",
    ]

    /// Upper-case hex (without "id:") to vendor name.
    static let registry: [String: String] = [
        "414D4400": "AMD",  // "AMD\0"
        "414E5400": "Ant Group",  // "ANT\0"
        "41524D00": "Arm",  // "ARM\0"
        "41544D4C": "Atmel",  // "ATML"
        "4252434D": "Broadcom",  // "BRCM"
        "4353434F": "Cisco",  // "CSCO"
        "464C5953": "Flyslice Technologies",  // "FLYS"
        "524F4343": "Fuzhou Rockchip",  // "ROCC"
        "474F4F47": "Google",  // "GOOG"
        "48504500": "HPE",  // "HPE\0"
        "48504900": "HP Inc.",  // "HPI\0"
        "48495349": "Huawei",  // "HISI"
        "49424D00": "IBM",  // "IBM\0"
        "49465800": "Infineon",  // "IFX\0"
        "494E5443": "Intel",  // "INTC"
        "4C454E00": "Lenovo",  // "LEN\0"
        "4D534654": "Microsoft",  // "MSFT"
        "4E534D20": "National Semiconductor",  // "NSM "
        "4E545A00": "Nationz",  // "NTZ\0"
        "4E534700": "NSING",  // "NSG\0"
        "4E544300": "Nuvoton Technology",  // "NTC\0"
        "51434F4D": "Qualcomm",  // "QCOM"
        "534D534E": "Samsung",  // "SMSN"
        "53454345": "SecEdge",  // "SECE"
        "534E5300": "Sinosun",  // "SNS\0"
        "534D5343": "SMSC",  // "SMSC"
        "53544D20": "STMicroelectronics",  // "STM "
        "54584E00": "Texas Instruments",  // "TXN\0"
        "57454300": "Winbond",  // "WEC\0"
        "5345414C": "Wisekey",  // "SEAL"
    ]

    /// Every identifier `isKnown(_:)` accepts (registry and test identifiers), as "id:" and
    /// eight upper-case hex digits, sorted.
    static var knownIDs: [String] {
        (Array(registry.keys) + Array(testIDs.keys)).sorted().map { "id:" + $0 }
    }

    /// The manufacturer's name for an identifier.
    /// - Parameter id: the attribute value: "id:" and eight hex digits (either case).
    /// - Returns: the vendor's (or test identifier's) name, or `nil` when the identifier is
    ///   malformed or not known.
    static func name(forID id: String) -> String? {
        guard let key = registryKey(id) else { return nil }
        return registry[key] ?? testIDs[key]
    }

    /// Whether an identifier names a registered manufacturer or one of the two test identifiers.
    /// - Parameter id: the attribute value: "id:" and eight hex digits (either case).
    /// - Returns: `true` when `name(forID:)` finds it.
    static func isKnown(_ id: String) -> Bool {
        name(forID: id) != nil
    }

    /// Whether an identifier has the TCG form: "id:" and exactly eight hex digits.
    /// - Parameter id: the TPMManufacturer attribute value.
    /// - Returns: `true` for `id:4E544300` and `id:51434f4d`, `false` for `ID:4E544300`, `id:4E5443`.
    static func isWellFormed(_ id: String) -> Bool {
        registryKey(id) != nil
    }

    /// The eight hex digits after "id:", upper-cased, when `id` has the TCG form, else `nil`.
    static func registryKey(_ id: String) -> String? {
        let bytes = Array(id.utf8)
        guard bytes.count == 11, bytes.starts(with: Array("id:".utf8)) else { return nil }
        var digits: [UInt8] = []
        for byte in bytes.dropFirst(3) {
            switch byte {
            case 0x30...0x39, 0x41...0x46: digits.append(byte)
            case 0x61...0x66: digits.append(byte - 0x20)  // a-f as A-F
            default: return nil
            }
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
