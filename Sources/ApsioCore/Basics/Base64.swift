/// Base64 with padding (RFC 4648 section 4): OTLP/JSON's `bytes` fields, and the credentials of a
/// `Proxy-Authorization: Basic` header.
package enum Base64 {
    private static let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode<Bytes: Collection>(_ data: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity((data.count + 2) / 3 * 4)
        var index = data.startIndex
        while index != data.endIndex {
            var group: UInt32 = 0
            var count = 0
            while count < 3, index != data.endIndex {
                group |= UInt32(data[index]) << UInt32(16 - 8 * count)
                count += 1
                index = data.index(after: index)
            }
            for position in 0..<4 {
                out.append(position <= count ? digits[Int(group >> UInt32(18 - 6 * position) & 63)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
