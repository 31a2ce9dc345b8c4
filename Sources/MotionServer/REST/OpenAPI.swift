/// The OpenAPI 3.1 description of the REST API (`GET /openapi.json`): `openapi.json` beside this file, embedded at
/// build time by the EmbedFiles plugin (Plugins/EmbedFiles). A test checks that every route is documented and every
/// documented path and method is routed.
enum OpenAPI {
    /// The document, byte for byte as the file holds it.
    static let document: [UInt8] = EmbeddedFiles.openapiJSON.withUTF8Buffer { Array($0) }
}
