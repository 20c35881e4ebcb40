// PromiseUV re-exports PromiseCore, so `import PromiseUV` alone gives promises and the loop.
@_exported public import PromiseCore
