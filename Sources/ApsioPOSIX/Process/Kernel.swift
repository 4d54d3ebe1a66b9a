#if canImport(Glibc)
internal import Glibc
#endif

/// What the running kernel says of itself.
package enum Kernel {
    /// `uname -r`: the release, as `/proc/sys/kernel/osrelease` has it.
    package static func release() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        return withUnsafeBytes(of: names.release) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
