#if canImport(Glibc)
internal import Glibc
#endif
package import ApsioPOSIX
import ApsioCore

/// Reads a configuration or key file: a regular file only (a FIFO or a device in its place would
/// block or never end), at most `limit` bytes, and its mode, checked on the opened file itself.
package enum ConfigurationFile {
    package struct Contents {
        package var bytes: [UInt8]
        package var mode: UInt32
    }

    package enum ReadError: Error, Equatable {
        case system(SystemError)
        case notRegularFile
        case tooLarge(limit: Int)
    }

    /// The file, or nil when it does not exist.
    package static func read(_ path: String, limit: Int) throws(ReadError) -> Contents? {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        let file: OwnedFileDescriptor
        do throws(SystemError) {
            file = try FileSystem.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        } catch where error.errno == ENOENT {
            return nil
        } catch {
            throw .system(error)
        }
        defer { file.close() }
        let info: FileStatus
        do throws(SystemError) {
            info = try FileSystem.status(of: file, path: path)
        } catch {
            throw .system(error)
        }
        guard info.kind == .regular else { throw .notRegularFile }
        guard info.size <= Int64(limit) else { throw .tooLarge(limit: limit) }
        do throws(SystemError) {
            // The size was checked, but the file may grow while it is read.
            let bytes = try FileSystem.readAll(file, path: path, maxBytes: limit)
            return Contents(bytes: bytes, mode: info.mode)
        } catch where error.errno == EFBIG {
            throw .tooLarge(limit: limit)
        } catch {
            throw .system(error)
        }
    }

    /// The reason alone, `strerror`'s words, for messages that already name the file.
    package static func reason(_ error: SystemError) -> String {
        error.reason
    }

    /// The file read and parsed, or nil when it is missing or cannot be read; a file that cannot
    /// be read is a problem saying why, and so is a missing one when `missingIsProblem` (a file
    /// just listed that disappeared). The file's own problems are in the result: the caller's to
    /// weigh (an app file's decide whether its app loads).
    package static func parse(
        _ path: String, limits: UnitFileLimits, missingIsProblem: Bool, problems: inout [ConfigurationProblem]
    ) -> UnitFile? {
        let contents: Contents?
        do {
            contents = try read(path, limit: limits.maxBytes)
        } catch {
            let message =
                switch error {
                case .system(let system): "cannot be read: \(reason(system))"
                case .notRegularFile: "is not a regular file"
                case .tooLarge(let limit): "is larger than \(limit) bytes, more than a configuration file holds"
                }
            problems.append(ConfigurationProblem(path: path, line: nil, message: message))
            return nil
        }
        guard let contents else {
            if missingIsProblem { problems.append(ConfigurationProblem(path: path, line: nil, message: "disappeared while it was read")) }
            return nil
        }
        return UnitFileParser.parse(contents.bytes, limits: limits)
    }
}
