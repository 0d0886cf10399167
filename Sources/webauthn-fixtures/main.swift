// webauthn-fixtures: writes the project's own recorded ceremonies into Fixtures/, or
// checks that the committed files are exactly what the generator produces.
//
//   swift run webauthn-fixtures [--check] [fixtures-folder]   (default folder: ./Fixtures)
//
// Exit status: 0 written / up to date; 1 --check found differences; 2 usage or I/O error.
import Foundation
import WebAuthnTestSupport

var check = false
var folder = "Fixtures"
for argument in CommandLine.arguments.dropFirst() {
    switch argument {
    case "--check": check = true
    case "-h", "--help":
        print("usage: webauthn-fixtures [--check] [fixtures-folder]")
        exit(0)
    default:
        if argument.hasPrefix("-") {
            FileHandle.standardError.write(Data("webauthn-fixtures: unknown option \(argument)\n".utf8))
            exit(2)
        }
        folder = argument
    }
}

let root = URL(fileURLWithPath: folder, isDirectory: true)
do {
    let files = try FixtureWriter.render()
    if check {
        let problems = FixtureWriter.differences(files, from: root)
        for problem in problems { print(problem) }
        print(problems.isEmpty ? "\(files.count) files up to date in \(folder)" : "\(problems.count) differences in \(folder)")
        exit(problems.isEmpty ? 0 : 1)
    }
    try FixtureWriter.write(files, to: root)
    print("wrote \(files.count) files to \(folder)")
} catch {
    FileHandle.standardError.write(Data("webauthn-fixtures: \(error)\n".utf8))
    exit(2)
}
