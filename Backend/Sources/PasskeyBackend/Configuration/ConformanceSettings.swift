import Foundation
import WebAuthnCrypto
import WebAuthnRP

/// What `CONFORMANCE=1` reads: the anchors and metadata statements the FIDO conformance tool
/// hands out. **For conformance runs only** (README, "Conformance profile").
package struct ConformanceSettings: Sendable {
    /// A folder of PEM certificates (`TRUST_ANCHORS_DIR`): anchors for every authenticator.
    package var trustAnchorsDirectory: String
    /// A folder of metadata statement JSON files (`METADATA_DIR`): each authenticator's roots.
    package var metadataDirectory: String

    package static func fromEnvironment(_ env: [String: String]) throws -> ConformanceSettings? {
        guard let flag = env["CONFORMANCE"], !flag.isEmpty, flag != "0" else { return nil }
        guard flag == "1" else { throw ConfigurationError("CONFORMANCE is 1 or unset, not \(flag)") }
        guard let anchors = env["TRUST_ANCHORS_DIR"], !anchors.isEmpty, let metadata = env["METADATA_DIR"], !metadata.isEmpty
        else {
            throw ConfigurationError("CONFORMANCE=1 needs TRUST_ANCHORS_DIR (PEM files) and METADATA_DIR (metadata statement JSON files)")
        }
        if let url = env["DATABASE_URL"], !url.isEmpty {
            throw ConfigurationError("CONFORMANCE=1 keeps its stores in memory: unset DATABASE_URL")
        }
        return ConformanceSettings(trustAnchorsDirectory: anchors, metadataDirectory: metadata)
    }

    /// The library's conformance profile over the statements and anchors in the two folders.
    package func policy() throws -> VerificationPolicy {
        var anchors: [Certificate] = []
        for (name, data) in try Self.files(in: trustAnchorsDirectory, suffixes: [".pem", ".crt"]) {
            // A file may hold several certificates: each BEGIN…END block is one.
            let text = String(decoding: data, as: UTF8.self)
            let blocks = text.components(separatedBy: "-----END CERTIFICATE-----").dropLast()
            guard !blocks.isEmpty else { throw ConfigurationError("TRUST_ANCHORS_DIR: \(name) holds no PEM certificate") }
            for block in blocks {
                do { anchors.append(try Certificate(pemEncoded: block + "-----END CERTIFICATE-----\n")) } catch {
                    throw ConfigurationError("TRUST_ANCHORS_DIR: \(name) is not a PEM certificate: \(error)")
                }
            }
        }
        let statements = try Self.files(in: metadataDirectory, suffixes: [".json"]).map(\.1)
        let trust: MetadataTrust
        do { trust = try MetadataTrust(statements: statements, additionalAnchors: anchors) } catch {
            throw ConfigurationError("METADATA_DIR: \(error)")
        }
        return .fidoConformance(trust: trust)
    }

    /// The regular files of `directory` whose names end in one of `suffixes`, by name, each at most 1 MiB.
    package static func files(in directory: String, suffixes: [String]) throws -> [(String, Data)] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw ConfigurationError("\(directory) cannot be read: \(error)")
        }
        return try names.sorted().filter { name in suffixes.contains { name.lowercased().hasSuffix($0) } }.map { name in
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
                throw ConfigurationError("\(path) cannot be read or is larger than 1 MiB")
            }
            return (name, data)
        }
    }
}
