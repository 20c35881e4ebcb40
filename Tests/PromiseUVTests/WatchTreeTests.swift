@testable import PromiseUV
import Testing

/// The directories a recursive watch holds, alone: no libuv, no file system.
@Suite struct WatchTreeTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A tree holding `paths` (parents first), each watched by its own path as text.
    static func tree(_ paths: [String]) -> WatchTree<String> {
        var tree = WatchTree<String>()
        for path in paths {
            let held = tree.insert(path, at: bytes(path))
            #expect(held, "\(path)")
        }
        return tree
    }

    @Test func holdsEachDirectoryOnce() {
        var tree = Self.tree(["a", "a/b", "c"])
        #expect(tree.count == 3)
        #expect(tree.watch(at: Self.bytes("a/b")) == "a/b")
        #expect(tree.watch(at: Self.bytes("b")) == nil)
        let replaced = tree.insert("again", at: Self.bytes("a/b"))
        #expect(!replaced, "a directory held already is not replaced")
        #expect(tree.watch(at: Self.bytes("a/b")) == "a/b")
        #expect(tree.count == 3)
    }

    @Test func removingADirectoryRemovesEverythingBelowItParentsFirst() {
        var tree = Self.tree(["a", "a/b", "a/b/c", "a/d", "ab", "ab/x", "e"])
        let removed = tree.removeSubtree(at: Self.bytes("a"))
        #expect(Set(removed) == ["a", "a/b", "a/b/c", "a/d"])
        #expect(removed.first == "a")
        #expect(removed.firstIndex(of: "a/b")! < removed.firstIndex(of: "a/b/c")!)
        // A sibling whose name starts with the removed one's stays.
        #expect(tree.count == 3)
        #expect(tree.watch(at: Self.bytes("ab/x")) == "ab/x")
        #expect(tree.watch(at: Self.bytes("e")) == "e")
        let removedAgain = tree.removeSubtree(at: Self.bytes("a"))
        #expect(removedAgain.isEmpty, "removing what is gone removes nothing")
        let removedNothing = tree.removeSubtree(at: Self.bytes("nothing"))
        #expect(removedNothing.isEmpty)
        // The name can be held again, with nothing of the old subtree under it.
        let heldAgain = tree.insert("a again", at: Self.bytes("a"))
        #expect(heldAgain)
        let removedNew = tree.removeSubtree(at: Self.bytes("a"))
        #expect(removedNew == ["a again"])
    }

    @Test func removingADeepDirectoryLeavesItsParent() {
        var tree = Self.tree(["a", "a/b", "a/b/c", "a/b2"])
        let removedDeep = tree.removeSubtree(at: Self.bytes("a/b"))
        #expect(removedDeep == ["a/b", "a/b/c"])
        #expect(tree.watch(at: Self.bytes("a")) == "a")
        #expect(tree.watch(at: Self.bytes("a/b2")) == "a/b2")
        let removedRest = tree.removeSubtree(at: Self.bytes("a"))
        #expect(removedRest == ["a", "a/b2"])
        #expect(tree.count == 0)
    }

    @Test func removeAllEmptiesTheTree() {
        var tree = Self.tree(["a", "a/b", "c"])
        let removed = tree.removeAll()
        #expect(Set(removed) == ["a", "a/b", "c"])
        #expect(tree.count == 0)
        #expect(tree.watch(at: Self.bytes("a")) == nil)
        let heldAfterAll = tree.insert("a", at: Self.bytes("a"))
        #expect(heldAfterAll)
    }

    @Test func aDeepChainIsRemovedWithoutRecursion() {
        var tree = WatchTree<Int>()
        var path: [UInt8] = []
        for depth in 0..<2_000 {
            path = WatchTree<Int>.path(of: [UInt8(ascii: "d")], in: path)
            let held = tree.insert(depth, at: path)
            #expect(held)
        }
        let removedChain = tree.removeSubtree(at: [UInt8(ascii: "d")])
        #expect(removedChain == Array(0..<2_000))
    }

    @Test func pathsJoinAndSplitByteForByte() {
        let invalidUTF8: [UInt8] = [0xFF, 0xFE]
        let joined = WatchTree<Int>.path(of: invalidUTF8, in: Self.bytes("a/b"))
        #expect(joined == Self.bytes("a/b/") + invalidUTF8)
        #expect(WatchTree<Int>.split(joined) == (Self.bytes("a/b"), invalidUTF8))
        #expect(WatchTree<Int>.split(Self.bytes("top")) == ([], Self.bytes("top")))
        #expect(WatchTree<Int>.path(of: Self.bytes("top"), in: []) == Self.bytes("top"))
    }
}
