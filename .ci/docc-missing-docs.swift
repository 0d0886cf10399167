// Lists the public symbols declared in Sources/WebAuthnRP that have no doc comment, reading
// the symbol graph `swift build -emit-symbol-graph` wrote. Exit status 1 when there are any.
// Symbols without a source location (compiler-synthesized conformances such as hashValue,
// init(rawValue:), Codable's init(from:)) and symbols of other modules are not counted.
// Usage: swift .ci/docc-missing-docs.swift <path>/<Module>.symbols.json [<source folder>]
// (the source folder, default Sources/WebAuthnRP: Backend/Sources/PasskeyBackend for the backend's)
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: docc-missing-docs.swift <Module>.symbols.json [<source folder>]\n".utf8))
    exit(2)
}
let folder = arguments.count == 3 ? arguments[2] : "Sources/WebAuthnRP"
guard let data = FileManager.default.contents(atPath: arguments[1]),
      let graph = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let symbols = graph["symbols"] as? [[String: Any]] else {
    FileHandle.standardError.write(Data("cannot read a symbol graph at \(arguments[1])\n".utf8))
    exit(2)
}

var missing: [String] = []
var counted = 0
for symbol in symbols {
    guard let location = symbol["location"] as? [String: Any],
          let uri = location["uri"] as? String,
          uri.contains("/\(folder)/") else { continue }
    counted += 1
    let lines = ((symbol["docComment"] as? [String: Any])?["lines"] as? [[String: Any]]) ?? []
    let text = lines.compactMap { $0["text"] as? String }.joined().trimmingCharacters(in: .whitespaces)
    if text.isEmpty {
        let path = (symbol["pathComponents"] as? [String])?.joined(separator: ".") ?? "?"
        let line = ((location["position"] as? [String: Any])?["line"] as? Int).map { $0 + 1 } ?? 0
        let file = uri.components(separatedBy: "/Sources/").last ?? uri
        missing.append("Sources/\(file):\(line): \(path)")
    }
}
for entry in missing.sorted() { print("no doc comment: \(entry)") }
print("\(counted) public symbols declared in \(folder), \(missing.count) without a doc comment")
exit(missing.isEmpty ? 0 : 1)
