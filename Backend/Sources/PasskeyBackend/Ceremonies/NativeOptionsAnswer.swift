import Foundation

extension PasskeyCeremonies {
    /// An app's options answer, `{"options": …, "state": "…"}`, for every adapter: the library's
    /// options bytes as they are, and the state (base64url and a dot: nothing to escape).
    package static func nativeOptionsAnswer(_ options: Data, state: String) -> Data {
        var body = Data(#"{"options":"#.utf8)
        body.append(options)
        body.append(Data(#","state":""#.utf8))
        body.append(Data(state.utf8))
        body.append(Data(#""}"#.utf8))
        return body
    }
}
