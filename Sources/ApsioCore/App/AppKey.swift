/// An app's key for the backend (`Apsio-App-Key`, 1.2). A secret: it is sent in that header to the
/// app's backend and live origin and nowhere else, and it never prints.
package struct AppKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Send it only in the `Apsio-App-Key` header.
    package let secret: String

    package init(_ secret: String) { self.secret = secret }

    package var description: String { "AppKey(<redacted>)" }
    package var debugDescription: String { description }
}
