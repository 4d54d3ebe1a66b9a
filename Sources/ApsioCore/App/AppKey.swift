/// An app's key for the backend (`Apsio-App-Key`, 1.2). A secret: it is sent in that header to the
/// app's backend and live origin and nowhere else, and it never prints.
public struct AppKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Send it only in the `Apsio-App-Key` header.
    public let secret: String

    public init(_ secret: String) { self.secret = secret }

    public var description: String { "AppKey(<redacted>)" }
    public var debugDescription: String { description }
}
