import ApsioCore
import ApsioJSON

extension LiveLine {
    /// The line as `frames` carries it in `lines`.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("t"); writer.int(timeUnixMs)
        writer.key("severity"); writer.int(Int64(severity))
        writer.key("body"); writer.string(body)
        writer.key("attributes")
        writer.beginObject()
        for attribute in attributes {
            writer.key(attribute.key)
            switch attribute.value {
            case .string(let text): writer.string(text)
            case .int(let number): writer.int(number)
            case .double(let number): writer.double(number)
            case .bool(let flag): writer.bool(flag)
            }
        }
        writer.endObject()
        writer.endObject()
    }
}
