#if canImport(Glibc)
internal import Glibc
#endif

/// A failed system call, with the call's name and errno, so a message says what failed and why.
package struct SystemError: Error, Equatable, CustomStringConvertible {
    package let call: String
    package let errno: Int32

    package init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The error of the call that just failed.
    package static func last(_ call: String) -> SystemError {
        SystemError(call, errno: Glibc.errno)
    }

    /// The same error named by its call alone, `bind` for `bind(/run/x)`: for a message that names
    /// the file or address already.
    package var withoutArguments: SystemError {
        SystemError(String(call.prefix(while: { $0 != "(" })), errno: errno)
    }

    /// The system's words for `errno` alone, for messages that name the file already.
    package var reason: String { String(cString: strerror(errno)) }

    package var description: String {
        "\(call): \(reason)"
    }
}

/// Runs a system call again when a signal interrupted it, and turns -1 into a typed error.
/// Every call that can return EINTR goes through here, so no caller forgets.
@discardableResult
package func retryingInterrupts<T: BinaryInteger>(_ call: String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw SystemError(call, errno: code)
    }
}
