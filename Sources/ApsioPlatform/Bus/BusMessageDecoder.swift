internal import CSystemd
import Glibc

/// Turns an `sd_bus_message` into `BusValue`s while the bus still owns it (inside a callback).
///
/// Any peer on the system bus can send us a signal that passes a match, so decoding is bounded:
/// at most `maxValues` values a message and `maxDepth` nested containers (D-Bus allows 64; no
/// property this daemon reads nests more than 3).
struct BusMessageDecoder {
    static let maxValues = 65_536
    static let maxDepth = 16

    private let message: OpaquePointer
    private var decoded = 0

    init(_ message: OpaquePointer) {
        self.message = message
    }

    static func decode(_ message: OpaquePointer, sequence: UInt64) throws(BusError) -> BusMessage {
        var decoder = BusMessageDecoder(message)
        let body = try decoder.readSequence(depth: 0)
        return BusMessage(
            sequence: sequence,
            sender: string(sd_bus_message_get_sender(message)),
            path: string(sd_bus_message_get_path(message)),
            interface: string(sd_bus_message_get_interface(message)),
            member: string(sd_bus_message_get_member(message)),
            body: body)
    }

    /// The D-Bus error a reply carries, if it is an error reply.
    static func error(of message: OpaquePointer) -> BusError? {
        guard sd_bus_message_is_method_error(message, nil) > 0 else { return nil }
        guard let error = sd_bus_message_get_error(message) else {
            return .methodError(name: "org.freedesktop.DBus.Error.Failed", message: "")
        }
        return .methodError(
            name: string(error.pointee.name) ?? "org.freedesktop.DBus.Error.Failed",
            message: string(error.pointee.message) ?? "")
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// Values up to the end of the current container.
    private mutating func readSequence(depth: Int) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while true {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            let more = sd_bus_message_peek_type(message, &type, &contents)
            if more < 0 { throw .malformed("cannot read the message (\(String(cString: strerror(-more))))") }
            if more == 0 { return values }
            values.append(try readOne(type: UInt8(bitPattern: type), contents: contents, depth: depth))
        }
    }

    private mutating func readOne(type: UInt8, contents: UnsafePointer<CChar>?, depth: Int) throws(BusError) -> BusValue {
        decoded += 1
        guard decoded <= Self.maxValues else { throw .malformed("more than \(Self.maxValues) values in one message") }
        switch type {
        case UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            guard depth < Self.maxDepth else { throw .malformed("containers nested deeper than \(Self.maxDepth)") }
            let entered = sd_bus_message_enter_container(message, CChar(bitPattern: type), contents)
            guard entered > 0 else { throw .malformed("cannot enter a container") }
            let inner = try readSequence(depth: depth + 1)
            guard sd_bus_message_exit_container(message) >= 0 else { throw .malformed("cannot leave a container") }
            switch type {
            case UInt8(ascii: "a"): return .array(inner)
            case UInt8(ascii: "v"):
                guard inner.count == 1 else { throw .malformed("a variant holds \(inner.count) values") }
                return .variant(inner[0])
            case UInt8(ascii: "e"):
                guard inner.count == 2 else { throw .malformed("a dictionary entry holds \(inner.count) values") }
                return .dictEntry(inner[0], inner[1])
            default: return .structure(inner)
            }
        default:
            return try readBasic(type)
        }
    }

    private func readBasic(_ type: UInt8) throws(BusError) -> BusValue {
        func read<T>(_ initial: T) throws(BusError) -> T {
            var value = initial
            let result = withUnsafeMutablePointer(to: &value) {
                sd_bus_message_read_basic(message, CChar(bitPattern: type), $0)
            }
            guard result > 0 else { throw .malformed("cannot read a value of type \(Character(Unicode.Scalar(type)))") }
            return value
        }
        switch type {
        case UInt8(ascii: "y"): return .byte(try read(UInt8(0)))
        case UInt8(ascii: "b"): return .bool(try read(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try read(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try read(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try read(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try read(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try read(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try read(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try read(Double(0)))
        case UInt8(ascii: "h"): return .unixFD(try read(Int32(-1)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try read(UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            switch type {
            case UInt8(ascii: "s"): return .string(text)
            case UInt8(ascii: "o"): return .objectPath(text)
            default: return .signature(text)
            }
        default:
            throw .malformed("unknown type code \(type)")
        }
    }
}
