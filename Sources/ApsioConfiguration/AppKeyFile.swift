import ApsioCore

/// A file holding one secret of an app file: the key `AppKeyFile=` names, or a header value
/// `HeaderFile=` names. Read whole at load and on reload.
enum AppKeyFile {
    static let maxBytes = 4096

    /// The app key: one secret without spaces.
    static func read(_ path: String) throws(AppKeyFileError) -> AppKey {
        let text = try readSecret(path)
        guard AppFileSchema.isHeaderText(text) else { throw .notHeaderText }
        return AppKey(text)
    }

    /// The secret as one line of printable ASCII, spaces allowed within it (`Bearer TOKEN`).
    static func readSecret(_ path: String) throws(AppKeyFileError) -> String {
        let contents: ConfigurationFile.Contents?
        do {
            contents = try ConfigurationFile.read(path, limit: maxBytes)
        } catch {
            switch error {
            case .system(let system): throw .cannotOpen(reason: ConfigurationFile.reason(system))
            case .notRegularFile: throw .notRegularFile
            case .tooLarge(let limit): throw .tooLarge(limit: limit)
            }
        }
        guard let contents else { throw .cannotOpen(reason: "No such file or directory") }
        // Checked before the content is even looked at: a key others can read is no longer secret.
        guard contents.mode & 0o006 == 0 else { throw .openToOthers(mode: contents.mode) }
        var bytes = contents.bytes[...]
        // `echo KEY > file` adds a newline; editors may add a carriage return before it.
        if bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { throw .empty }
        guard let text = String(validating: bytes, as: UTF8.self), AppFileSchema.isHeaderValue(text) else {
            throw .notHeaderText
        }
        return text
    }
}
