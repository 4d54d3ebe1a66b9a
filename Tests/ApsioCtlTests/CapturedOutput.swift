import ApsioPOSIX
import ApsioCtl
import Synchronization

/// apsioctl's two streams kept in memory, read while a `watch` still writes to them.
final class CapturedOutput: CtlOutput, ChangeSource {
    private let streams = Mutex<(stdout: [UInt8], stderr: [UInt8])>(([], []))
    private let written = ChangeSignal()

    func write(_ bytes: [UInt8], to stream: CtlStream) {
        streams.withLock { streams in
            switch stream {
            case .standardOutput: streams.stdout += bytes
            case .standardError: streams.stderr += bytes
            }
        }
        written.notify()
    }

    /// Changes with each write: a test waits for the line it expects instead of polling.
    func markChange() -> @Sendable () async throws -> Void { written.markChange() }

    var stdout: String { String(decoding: streams.withLock { $0.stdout }, as: UTF8.self) }
    var stderr: String { String(decoding: streams.withLock { $0.stderr }, as: UTF8.self) }
}
