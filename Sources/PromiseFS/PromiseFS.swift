// PromiseFS re-exports PromiseCore, so `import PromiseFS` alone gives promises and file I/O.
@_exported public import PromiseCore
