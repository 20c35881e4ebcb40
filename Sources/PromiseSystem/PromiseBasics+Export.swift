// The adapters reach PromiseBasics' Duration conversions and standard-error writer through
// PromiseSystem, as one import.
@_exported public import PromiseBasics
