/// Queue bytes that are not a record this release can read.
package enum LogRecordCodecError: Error, Equatable, CustomStringConvertible {
    case unsupportedVersion(UInt8)
    case malformed(String)

    package var description: String {
        switch self {
        case .unsupportedVersion(let version):
            "queued record of format version \(version), which this apsiod cannot read (it reads \(LogRecordCodec.version))"
        case .malformed(let part): "queued record is damaged: \(part)"
        }
    }
}
