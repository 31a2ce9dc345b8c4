import PackagePlugin

/// Embeds a target's `.json` files in it at build time, with no Foundation and no resource bundle at run time.
///
/// Every `.json` file among the target's sources becomes a member of a generated `enum EmbeddedFiles`, a
/// `StaticString` holding the file's bytes exactly (`openapi.json` → `EmbeddedFiles.openapiJSON`); the
/// `embed-files` tool (Sources/embed-files) writes it, and reruns whenever one of the files changes. To use it, add
/// `plugins: ["EmbedFiles"]` to the target and keep the files in its folder:
///
/// ```swift
/// let document: [UInt8] = EmbeddedFiles.openapiJSON.withUTF8Buffer { Array($0) }
/// ```
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? any SourceModuleTarget else { return [] }
        let inputs = target.sourceFiles(withSuffix: ".json").map(\.url)
        guard !inputs.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.map(\.lastPathComponent).joined(separator: ", ")) in \(target.name)",
                executable: try context.tool(named: "embed-files").url,
                arguments: [output.path(percentEncoded: false)] + inputs.map { $0.path(percentEncoded: false) },
                inputFiles: inputs, outputFiles: [output])
        ]
    }
}
