#if canImport(Glibc)
import Glibc
#endif

/// The calling thread's name as `top -H` and `/proc/PID/task/TID/comm` show it.
package func currentThreadName() -> String {
    guard let file = fopen("/proc/thread-self/comm", "re") else { return "?" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "?" }
    let bytes = buffer.prefix { $0 != 0 && $0 != 0x0A }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
