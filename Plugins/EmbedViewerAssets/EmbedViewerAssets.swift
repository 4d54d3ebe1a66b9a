import Foundation
import PackagePlugin

/// Compiles the viewer's pages (`Viewer/` in the target's directory: HTML, CSS, JavaScript, each a
/// plain file a person can read and edit) into a Swift source, so the development backend's binary
/// serves them with nothing installed beside it.
@main struct EmbedViewerAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        // The target's own directory URL needs tools version 6.1; targets live under Sources/NAME.
        let directory = context.package.directoryURL.appending(path: "Sources/\(target.name)/Viewer")
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") && !$0.lastPathComponent.hasSuffix("~") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "ViewerAssetFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding the viewer's \(files.count) files",
                executable: try context.tool(named: "apsio-embed-viewer").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
