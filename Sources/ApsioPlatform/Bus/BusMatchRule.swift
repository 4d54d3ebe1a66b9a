/// A D-Bus match rule, built from parts so a value can never break out of its quotes.
package struct BusMatchRule: Sendable, Equatable, CustomStringConvertible {
    package let text: String

    /// A signal rule; `nil` parts match anything. `arg0` filters on the first string argument
    /// (NameOwnerChanged's name, PropertiesChanged's interface).
    package static func signal(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        arg0: String? = nil
    ) -> BusMatchRule {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender=\(quoted(sender))") }
        if let path { parts.append("path=\(quoted(path))") }
        if let interface { parts.append("interface=\(quoted(interface))") }
        if let member { parts.append("member=\(quoted(member))") }
        if let arg0 { parts.append("arg0=\(quoted(arg0))") }
        return BusMatchRule(text: parts.joined(separator: ","))
    }

    /// `NameOwnerChanged` for one name: it appears, moves or goes away.
    package static func nameOwnerChanged(_ name: String) -> BusMatchRule {
        signal(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
               member: "NameOwnerChanged", arg0: name)
    }

    /// `PropertiesChanged` of one object of one service.
    package static func propertiesChanged(sender: String, path: String) -> BusMatchRule {
        signal(sender: sender, path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
    }

    /// The match-rule quoting of the D-Bus specification: inside single quotes nothing is special,
    /// and a single quote is written by closing the quotes, an escaped quote, and opening again.
    static func quoted(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    package var description: String { text }
}
