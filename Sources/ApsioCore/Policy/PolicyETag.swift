/// The backend's `ETag` for a policy body, sent back in `If-None-Match` so an unchanged policy
/// costs a 304 and no body.
///
/// Only an entity-tag of RFC 9110 8.8.3 (`"…"` or `W/"…"`, visible ASCII inside the quotes) of at
/// most `maxBytes` is kept. Anything else is dropped rather than echoed: it would go back into a
/// request header and into a state file, and a value with a line break would split both.
package struct PolicyETag: Sendable, Hashable, CustomStringConvertible {
    package let value: String

    /// Real validators are a hash or a version number; this leaves room for any of them.
    package static let maxBytes = 256

    package init?(_ value: String) {
        let bytes = Array(value.utf8)
        guard bytes.count <= Self.maxBytes else { return nil }
        let opaque = bytes.starts(with: Array("W/".utf8)) ? bytes.dropFirst(2) : bytes[...]
        guard opaque.count >= 2, opaque.first == 0x22, opaque.last == 0x22 else { return nil }
        let inside = opaque.dropFirst().dropLast()
        guard inside.allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) }) else { return nil }
        self.value = value
    }

    package var description: String { value }
}
