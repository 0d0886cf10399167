// TPM manufacturer identifiers as a `tpm` attestation certificate carries them: the
// TPMManufacturer attribute (2.23.133.2.1) in the Subject Alternative Name directory name holds
// "id:" followed by eight hex digits, the TPM_PT_MANUFACTURER value. That value is the vendor's
// four-character ASCII code, padded with NUL (or space), so "id:494E5443" is "INTC" (Intel).
//
// The table is the "TPM Capabilities Vendor ID" list of the TCG TPM Vendor ID Registry
// (Family 1.2 and 2.0), plus the identifier the FIDO Alliance conformance tools put in their
// test TPM certificates. Each entry's hex decodes to the vendor code noted beside it.

/// Looks up TPM manufacturer identifiers ("id:XXXXXXXX") from an attestation certificate.
public enum TPMManufacturer {
    /// The identifier FIDO Alliance conformance tools use for their test TPMs.
    /// It is not a TCG registry entry; a deployment may refuse it outside testing.
    public static let fidoConformanceTestingID = "id:FFFFF1D0"

    /// Upper-case hex (without "id:") to vendor name.
    static let registry: [String: String] = [
        "414D4400": "AMD",                      // "AMD\0"
        "414E5400": "Ant Group",                // "ANT\0"
        "41524D00": "Arm",                      // "ARM\0"
        "41544D4C": "Atmel",                    // "ATML"
        "4252434D": "Broadcom",                 // "BRCM"
        "4353434F": "Cisco",                    // "CSCO"
        "464C5953": "Flyslice Technologies",    // "FLYS"
        "524F4343": "Fuzhou Rockchip",          // "ROCC"
        "474F4F47": "Google",                   // "GOOG"
        "48504500": "HPE",                      // "HPE\0"
        "48504900": "HP Inc.",                  // "HPI\0"
        "48495349": "Huawei",                   // "HISI"
        "49424D00": "IBM",                      // "IBM\0"
        "49465800": "Infineon",                 // "IFX\0"
        "494E5443": "Intel",                    // "INTC"
        "4C454E00": "Lenovo",                   // "LEN\0"
        "4D534654": "Microsoft",                // "MSFT"
        "4E534D20": "National Semiconductor",   // "NSM "
        "4E545A00": "Nationz",                  // "NTZ\0"
        "4E534700": "NSING",                    // "NSG\0"
        "4E544300": "Nuvoton Technology",       // "NTC\0"
        "51434F4D": "Qualcomm",                 // "QCOM"
        "534D534E": "Samsung",                  // "SMSN"
        "53454345": "SecEdge",                  // "SECE"
        "534E5300": "Sinosun",                  // "SNS\0"
        "534D5343": "SMSC",                     // "SMSC"
        "53544D20": "STMicroelectronics",       // "STM "
        "54584E00": "Texas Instruments",        // "TXN\0"
        "57454300": "Winbond",                  // "WEC\0"
        "5345414C": "Wisekey",                  // "SEAL"
        "FFFFF1D0": "FIDO Alliance conformance testing",
    ]

    /// Every identifier `isKnown(_:)` accepts, as "id:" and eight upper-case hex digits, sorted.
    public static var knownIDs: [String] {
        registry.keys.sorted().map { "id:" + $0 }
    }

    /// The manufacturer's name for an identifier.
    /// - Parameter id: the attribute value, "id:" and eight hex digits; both are case-insensitive.
    /// - Returns: the vendor's name, or `nil` when the identifier is malformed or not registered.
    public static func name(forID id: String) -> String? {
        guard let key = registryKey(id) else { return nil }
        return registry[key]
    }

    /// Whether an identifier names a registered manufacturer (or the FIDO conformance test TPM).
    /// - Parameter id: the attribute value, "id:" and eight hex digits; both are case-insensitive.
    /// - Returns: `true` when `name(forID:)` finds it.
    public static func isKnown(_ id: String) -> Bool {
        name(forID: id) != nil
    }

    /// "id:" (any case) and exactly eight hex digits, returned upper-cased without the prefix.
    static func registryKey(_ id: String) -> String? {
        let scalars = Array(id.unicodeScalars)
        guard scalars.count == 11 else { return nil }
        let prefix = String(String.UnicodeScalarView(scalars.prefix(3))).lowercased()
        guard prefix == "id:" else { return nil }
        let digits = scalars.dropFirst(3)
        guard digits.allSatisfy({ $0.isASCII && $0.properties.isASCIIHexDigit }) else { return nil }
        return String(String.UnicodeScalarView(digits)).uppercased()
    }
}
