// PromiseCurl re-exports PromiseCore and HTTPTypes, so `import PromiseCurl` alone gives
// promises, HTTP field types and the client.
@_exported public import PromiseCore
@_exported public import HTTPTypes
