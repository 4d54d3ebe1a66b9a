/// A command as Redis reads it: an array of bulk strings, whatever the bytes.
package struct RESPCommand: Sendable, Equatable {
    package var arguments: [[UInt8]]

    package init(_ arguments: [[UInt8]]) { self.arguments = arguments }

    package init(_ name: String, _ arguments: [String]) {
        self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
    }

    package init(_ name: String, _ arguments: String...) { self.init(name, arguments) }

    /// The command's name, for errors and logs (never its arguments: they may hold a token).
    package var name: String { arguments.first.map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// Appends the command's wire form to `out`.
    package func encode(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "*"))
        Self.appendDecimal(arguments.count, to: &out)
        for argument in arguments {
            out.append(UInt8(ascii: "$"))
            Self.appendDecimal(argument.count, to: &out)
            out.append(contentsOf: argument)
            out.append(contentsOf: [13, 10])
        }
    }

    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
        out.append(contentsOf: [13, 10])
    }
}
