/// Which ceremony a challenge was issued for.
public enum CeremonyKind: String, Sendable, Hashable, Codable {
    /// A registration (`navigator.credentials.create`).
    case registration
    /// An authentication (`navigator.credentials.get`).
    case authentication
}
