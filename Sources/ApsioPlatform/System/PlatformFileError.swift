internal import Glibc

/// Why a file the readers need could not be read, with the path and the system's words for it.
public struct PlatformFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case system(errno: Int32)
        case tooLarge(limit: Int)
        case malformed(String)
    }

    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var errno: Int32? {
        if case .system(let number) = reason { return number }
        return nil
    }

    public var description: String {
        switch reason {
        case .system(let number): "\(path): \(String(cString: strerror(number)))"
        case .tooLarge(let limit): "\(path): larger than \(limit) bytes, not read"
        case .malformed(let what): "\(path): \(what)"
        }
    }
}
