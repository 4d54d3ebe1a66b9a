package import ApsioPOSIX

/// Why a state file could not be read or written, in words an operator can act on.
package enum StateStoreError: Error, Equatable, CustomStringConvertible {
    case system(SystemError)
    /// The file is there but is not what we write: fix it or remove it.
    case unreadable(path: String, reason: String)
    /// Another `apsioctl` or `apsiod` held the settings lock for longer than we wait.
    case locked(path: String)
    /// Another daemon serves from this state directory (it holds `apsiod.lock`).
    case inUse(path: String)

    package var description: String {
        switch self {
        case .system(let error): "state: \(error)"
        case .unreadable(let path, let reason): "\(path) is damaged (\(reason)); fix it or remove it"
        case .locked(let path): "\(path) stayed locked by another apsioctl or apsiod; try again"
        case .inUse(let path):
            "another apsiod serves from this state directory (it holds \(path)); stop it, or give this one its own --state-dir"
        }
    }

    static func io<T>(_ body: () throws(SystemError) -> T) throws(StateStoreError) -> T {
        do { return try body() } catch { throw .system(error) }
    }
}
