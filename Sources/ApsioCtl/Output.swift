internal import ApsioCore
import ApsioJSON

/// apsioctl's lines on its two streams, whatever they are (see `CtlOutput`).
struct Output {
    let streams: any CtlOutput

    func line(_ text: String) {
        streams.write(Array((text + "\n").utf8), to: .standardOutput)
    }

    /// A JSON line as the daemon sent it, or as apsioctl made it.
    func json(_ bytes: [UInt8]) {
        streams.write(bytes.last == 0x0A ? bytes : bytes + [0x0A], to: .standardOutput)
    }

    func json(_ value: JSONValue) {
        json(JSONWriter.encode(value))
    }

    /// The one line on stderr that says what went wrong and what to do.
    func error(_ text: String) {
        streams.write(Array(("apsioctl: " + text + "\n").utf8), to: .standardError)
    }
}
