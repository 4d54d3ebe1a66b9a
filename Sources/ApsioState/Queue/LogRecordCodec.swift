package import ApsioCore

/// A log record as queue payload bytes and back: a compact binary form with a version byte, so a
/// queue written by one release is read by the next or refused by name, never misread.
///
/// Version 2, all integers little-endian, strings as a u32 byte count and UTF-8:
/// `02`, time (u64 ns), severity number (i64), severity text, family (u8: 0 logs, 1 errors),
/// flags (u8: bit 0 released by a command; the other bits must be 0), body, session id and
/// journal cursor (each a presence byte then the string), attribute count (u32), then each
/// attribute's key, a type byte (0 string, 1 int, 2 double, 3 bool) and value (string; i64; the
/// double's bits as u64; u8 0 or 1).
///
/// Version 1 is version 2 without the flags byte: a queue an earlier release wrote is still read.
package enum LogRecordCodec {
    package static let version: UInt8 = 2
    static let releasedByCommandFlag: UInt8 = 1

    package static func encode(_ record: LogRecord) -> [UInt8] {
        var writer = BinaryWriter(reservingCapacity: 64 + record.body.utf8.count)
        writer.u8(version)
        writer.u64(record.timeUnixNano)
        writer.i64(Int64(record.severityNumber))
        writer.string(record.severityText)
        writer.u8(record.family == .logs ? 0 : 1)
        writer.u8(record.releasedByCommand ? Self.releasedByCommandFlag : 0)
        writer.string(record.body)
        writer.optionalString(record.sessionID)
        writer.optionalString(record.journalCursor)
        writer.u32(UInt32(record.attributes.count))
        for attribute in record.attributes {
            writer.string(attribute.key)
            switch attribute.value {
            case .string(let text):
                writer.u8(0)
                writer.string(text)
            case .int(let number):
                writer.u8(1)
                writer.i64(number)
            case .double(let number):
                writer.u8(2)
                writer.u64(number.bitPattern)
            case .bool(let flag):
                writer.u8(3)
                writer.u8(flag ? 1 : 0)
            }
        }
        return writer.bytes
    }

    package static func decode(_ bytes: some Collection<UInt8>) throws(LogRecordCodecError) -> LogRecord {
        var reader = BinaryReader(ArraySlice(bytes))
        guard let version = reader.u8() else { throw .malformed("empty payload") }
        guard version == 1 || version == Self.version else { throw .unsupportedVersion(version) }
        guard let time = reader.u64(), let severityNumber = reader.i64(), let severityText = reader.string()
        else { throw .malformed("time or severity") }
        guard let severity = Int(exactly: severityNumber) else { throw .malformed("severity number") }
        let family: LogFamily
        switch reader.u8() {
        case 0: family = .logs
        case 1: family = .errors
        default: throw .malformed("family")
        }
        var releasedByCommand = false
        if version >= 2 {
            guard let flags = reader.u8(), flags & ~Self.releasedByCommandFlag == 0 else { throw .malformed("flags") }
            releasedByCommand = flags & Self.releasedByCommandFlag != 0
        }
        guard let body = reader.string() else { throw .malformed("body") }
        guard let sessionID = reader.optionalString(), let cursor = reader.optionalString()
        else { throw .malformed("session id or cursor") }
        guard let count = reader.u32() else { throw .malformed("attribute count") }
        var attributes: [Attribute] = []
        // Each attribute takes at least 6 bytes, so a damaged count cannot reserve more than the
        // payload could hold.
        attributes.reserveCapacity(min(Int(count), reader.remaining / 6))
        for _ in 0..<count {
            guard let key = reader.string() else { throw .malformed("attribute key") }
            let value: AttributeValue
            switch reader.u8() {
            case 0:
                guard let text = reader.string() else { throw .malformed("attribute \(key)") }
                value = .string(text)
            case 1:
                guard let number = reader.i64() else { throw .malformed("attribute \(key)") }
                value = .int(number)
            case 2:
                guard let bits = reader.u64() else { throw .malformed("attribute \(key)") }
                value = .double(Double(bitPattern: bits))
            case 3:
                switch reader.u8() {
                case 0: value = .bool(false)
                case 1: value = .bool(true)
                default: throw .malformed("attribute \(key)")
                }
            default:
                throw .malformed("attribute \(key) type")
            }
            attributes.append(Attribute(key, value))
        }
        guard reader.isAtEnd else { throw .malformed("\(reader.remaining) bytes after the record") }
        return LogRecord(
            timeUnixNano: time, severityNumber: severity, severityText: severityText, family: family, body: body,
            attributes: attributes, sessionID: sessionID, journalCursor: cursor, releasedByCommand: releasedByCommand)
    }
}
