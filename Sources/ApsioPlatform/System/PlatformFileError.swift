internal import Glibc

/// Why a file the readers need could not be read, with the path and the system's words for it.
package struct PlatformFileError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        case system(errno: Int32)
        case tooLarge(limit: Int)
        case malformed(String)
    }

    package var path: String
    package var reason: Reason

    package init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    package var errno: Int32? {
        if case .system(let number) = reason { return number }
        return nil
    }

    package var description: String {
        switch reason {
        case .system(let number): "\(path): \(String(cString: strerror(number)))"
        case .tooLarge(let limit): "\(path): larger than \(limit) bytes, not read"
        case .malformed(let what): "\(path): \(what)"
        }
    }
}
