/// How much of a configuration file is read. Configuration is written by people and config
/// management, never megabytes: a file past these is refused whole rather than read in part.
package struct UnitFileLimits: Sendable, Equatable {
    package var maxBytes: Int
    package var maxLines: Int
    /// One logical line: an assignment with its continuation lines joined.
    package var maxLineBytes: Int

    package init(maxBytes: Int = 64 * 1024, maxLines: Int = 2000, maxLineBytes: Int = 4096) {
        self.maxBytes = maxBytes
        self.maxLines = maxLines
        self.maxLineBytes = maxLineBytes
    }

    package static let standard = UnitFileLimits()
}
