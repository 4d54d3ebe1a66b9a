
/// The name of a configured app (its file `/etc/apsio/apps.d/NAME.conf`), checked so that it can
/// name a directory under the state directory and never step out of it.
package struct AppName: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let rawValue: String

    /// Letters, digits, `.`, `_` and `-`, 1 to 255 bytes, and not `.` or `..`.
    package init(_ rawValue: String) throws(AppNameError) {
        guard Self.isValid(rawValue) else { throw AppNameError(name: rawValue) }
        self.rawValue = rawValue
    }

    package static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...255).contains(bytes.count), name != ".", name != ".." else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    package var description: String { rawValue }
}
