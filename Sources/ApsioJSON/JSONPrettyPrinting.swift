extension JSONValue {
    /// This value as a person reads it: two spaces a level, one member or item a line, keys sorted,
    /// and a final newline. For the files an operator may open (`settings.json`); the wire gets
    /// `JSONWriter`'s compact form.
    package var prettyPrinted: [UInt8] {
        var out: [UInt8] = []
        Self.write(self, depth: 0, into: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    private static func write(_ value: JSONValue, depth: Int, into out: inout [UInt8]) {
        let indent = [UInt8](repeating: UInt8(ascii: " "), count: 2 * (depth + 1))
        let closing = [UInt8](repeating: UInt8(ascii: " "), count: 2 * depth)
        switch value {
        case .array(let items) where !items.isEmpty:
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                out += (index == 0 ? [] : [UInt8(ascii: ",")]) + [UInt8(ascii: "\n")] + indent
                write(item, depth: depth + 1, into: &out)
            }
            out += [UInt8(ascii: "\n")] + closing + [UInt8(ascii: "]")]
        case .object(let members) where !members.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (index, name) in members.keys.sorted().enumerated() {
                out += (index == 0 ? [] : [UInt8(ascii: ",")]) + [UInt8(ascii: "\n")] + indent
                var key = JSONWriter()
                key.string(name)
                out += key.bytes + Array(": ".utf8)
                write(members[name]!, depth: depth + 1, into: &out)
            }
            out += [UInt8(ascii: "\n")] + closing + [UInt8(ascii: "}")]
        default:
            var writer = JSONWriter()
            writer.value(value)
            out += writer.bytes
        }
    }
}
