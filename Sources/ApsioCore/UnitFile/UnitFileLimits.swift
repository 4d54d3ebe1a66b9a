/// How much of a configuration file is read. Configuration is written by people and config
/// management, never megabytes: a file past these is refused whole rather than read in part.
public struct UnitFileLimits: Sendable, Equatable {
    public var maxBytes: Int
    public var maxLines: Int
    /// One logical line: an assignment with its continuation lines joined.
    public var maxLineBytes: Int

    public init(maxBytes: Int = 64 * 1024, maxLines: Int = 2000, maxLineBytes: Int = 4096) {
        self.maxBytes = maxBytes
        self.maxLines = maxLines
        self.maxLineBytes = maxLineBytes
    }

    public static let standard = UnitFileLimits()
}
