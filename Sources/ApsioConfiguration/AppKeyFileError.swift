/// Why the file `AppKeyFile=` names gave no key. No case holds any byte of the file.
enum AppKeyFileError: Error, Equatable {
    case cannotOpen(reason: String)
    case notRegularFile
    /// Other users may read (or write) it: the mode, to show the operator what to change.
    case openToOthers(mode: UInt32)
    case tooLarge(limit: Int)
    case empty
    case notHeaderText
    case readFailed(reason: String)
}
