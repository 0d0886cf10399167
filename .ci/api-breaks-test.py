#!/usr/bin/env python3
"""Tests of .ci/api-breaks.py itself: a baseline and a current symbol graph, written here, go
through the script as CI runs it (--graphs, so nothing is built), and its exit code and report
are checked. python3 only (unittest); .ci/run runs it before the real comparison.

Usage: .ci/api-breaks-test.py [-v]
"""
import json, os, subprocess, sys, tempfile, unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api-breaks.py")


def symbol(precise, path, kind, *fragments):
    """A public symbol as `swift package dump-symbol-graph` writes it."""
    return {
        "identifier": {"precise": precise, "interfaceLanguage": "swift"},
        "kind": {"identifier": kind, "displayName": kind},
        "pathComponents": path.split("."),
        "accessLevel": "public",
        "declarationFragments": [{"kind": "text", "spelling": text} for text in fragments],
    }


SERVICE = symbol("s:3Lib7ServiceV", "Service", "swift.struct", "struct ", "Service")
FINISH = symbol("s:3Lib7ServiceV6finishyyF", "Service.finish(_:now:)", "swift.method",
                "func finish(_ response: Response, now: Date) -> Bool")
START = symbol("s:3Lib7ServiceV5startyyF", "Service.start(now:)", "swift.method", "func start(now: Date) -> Options")
KIND = symbol("s:3Lib4KindO", "Kind", "swift.enum", "enum Kind")
KIND_A = symbol("s:3Lib4KindO1ayA2CmF", "Kind.a", "swift.enum.case", "case a")
STORE = symbol("s:3Lib5StoreP", "Store", "swift.protocol", "protocol Store")
STORE_GET = symbol("s:3Lib5StoreP3getyyF", "Store.get(id:)", "swift.method", "func get(id: [UInt8]) async throws -> Bool")
BASE = [SERVICE, FINISH, START, KIND, KIND_A, STORE, STORE_GET]
BASE_RELATIONS = [
    {"kind": "memberOf", "source": FINISH["identifier"]["precise"], "target": "s:3Lib7ServiceV"},
    {"kind": "conformsTo", "source": "s:3Lib7ServiceV", "target": "s:s8SendableP", "targetFallback": "Swift.Sendable"},
    {"kind": "requirementOf", "source": STORE_GET["identifier"]["precise"], "target": "s:3Lib5StoreP"},
]
CHANGELOG_HEAD = "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- `Service.extra`.\n\n"
RELEASED = "## [0.1.0] - 2026-01-01\n\n### Breaking\n\n- `Service.finish` (an old break, already released).\n"


class APIBreaksTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def graphs(self, work, name, symbols, relationships):
        folder = os.path.join(work, name)
        os.makedirs(folder)
        with open(os.path.join(folder, "Lib.symbols.json"), "w") as handle:
            json.dump({"module": {"name": "Lib"}, "symbols": symbols, "relationships": relationships}, handle)
        # A module outside the product: never read.
        with open(os.path.join(folder, "Other.symbols.json"), "w") as handle:
            json.dump({"module": {"name": "Other"}, "symbols": [symbol("s:5Other1XV", "X", "swift.struct", "struct X")],
                       "relationships": []}, handle)
        return folder

    def run_script(self, work, *arguments):
        return subprocess.run([sys.executable, SCRIPT, "--modules", "Lib=Lib", "--baseline", os.path.join(work, "baseline.json"),
                               *arguments], capture_output=True, text=True)

    def check(self, symbols, relationships=BASE_RELATIONS, changelog=CHANGELOG_HEAD + RELEASED):
        """Records BASE as the baseline, then compares `symbols`; returns the finished process."""
        work = tempfile.mkdtemp(dir=self.folder.name)
        recorded = self.run_script(work, "--update", "--graphs", self.graphs(work, "old", BASE, BASE_RELATIONS))
        self.assertEqual(recorded.returncode, 0, recorded.stdout + recorded.stderr)
        self.assertIn(f"{len(BASE)} public symbols of Lib recorded", recorded.stdout)  # not Other.X
        changelog_path = os.path.join(work, "CHANGELOG.md")
        with open(changelog_path, "w") as handle:
            handle.write(changelog)
        return self.run_script(work, "--graphs", self.graphs(work, "new", symbols, relationships), "--changelog", changelog_path)

    def assertPasses(self, run, *texts):
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        for text in texts:
            self.assertIn(text, run.stdout)

    def assertFails(self, run, *texts):
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        for text in texts:
            self.assertIn(text, run.stdout)

    def test_unchanged_api_passes(self):
        self.assertPasses(self.check(BASE), "0 added, 0 source-compatible, 0 breaking")

    def test_added_symbol_passes_and_is_reported(self):
        extra = symbol("s:3Lib7ServiceV5extraSivp", "Service.extra", "swift.property", "var extra: Int { get }")
        self.assertPasses(self.check(BASE + [extra]), "added: Service.extra", "1 added")

    def test_removed_symbol_fails(self):
        self.assertFails(self.check([s for s in BASE if s is not START]),
                         "removed: Service.start(now:) (BREAKING, not in the changelog)")

    def test_changed_signature_fails(self):
        changed = symbol("s:3Lib7ServiceV5startyySiF", "Service.start(now:)", "swift.method", "func start(now: Int) -> Options")
        self.assertFails(self.check([s for s in BASE if s is not START] + [changed]),
                         "changed: Service.start(now:) (BREAKING", "func start(now: Date) -> Options  ->  func start(now: Int)")

    def test_removed_symbol_named_under_breaking_passes(self):
        changelog = CHANGELOG_HEAD + "### Breaking\n\n- `Service.start(now:)` is gone: call `Service.begin`.\n\n" + RELEASED
        self.assertPasses(self.check([s for s in BASE if s is not START], changelog=changelog),
                          "removed: Service.start(now:) (breaking, named in the changelog)")

    def test_changed_signature_named_without_labels_or_with_module_passes(self):
        changed = symbol("s:3Lib7ServiceV5startyySiF", "Service.start(now:)", "swift.method", "func start(at: Int) -> Options")
        for name in ("`Service.start`", "`Lib.Service.start(at:)`", "`Service.start(…)`"):
            with self.subTest(name=name):
                changelog = CHANGELOG_HEAD + f"### Breaking\n\n- {name} takes an Int.\n\n" + RELEASED
                self.assertPasses(self.check([s for s in BASE if s is not START] + [changed], changelog=changelog))

    def test_breaking_entry_of_a_released_version_does_not_count(self):
        # RELEASED names Service.finish under its own Breaking: that is history, not this change.
        self.assertFails(self.check([s for s in BASE if s is not FINISH]), "removed: Service.finish(_:now:) (BREAKING")

    def test_another_symbol_named_does_not_cover(self):
        changelog = CHANGELOG_HEAD + "### Breaking\n\n- `Service.finish` changed.\n\n" + RELEASED
        self.assertFails(self.check([s for s in BASE if s is not START], changelog=changelog), "Service.start(now:) (BREAKING")

    def test_removed_type_named_covers_its_members(self):
        changelog = CHANGELOG_HEAD + "### Breaking\n\n- `Service` is gone.\n\n" + RELEASED
        self.assertPasses(self.check([KIND, KIND_A, STORE, STORE_GET], relationships=[], changelog=changelog),
                          "3 breaking (3 named")

    def test_parameter_with_default_added_passes(self):
        widened = symbol("s:3Lib7ServiceV6finishyySbF", "Service.finish(_:now:commit:)", "swift.method",
                         "func finish(_ response: Response, now: Date, commit: (() -> Bool)? = nil) -> Bool")
        self.assertPasses(self.check([s for s in BASE if s is not FINISH] + [widened]),
                          "changed, source-compatible (parameters with defaults added): Service.finish(_:now:)",
                          "0 added, 1 source-compatible, 0 breaking")

    def test_labels_changed_is_a_removal(self):
        relabelled = symbol("s:3Lib7ServiceV5startyyF2", "Service.start(at:)", "swift.method", "func start(at: Date) -> Options")
        self.assertFails(self.check([s for s in BASE if s is not START] + [relabelled]),
                         "added: Service.start(at:)", "removed: Service.start(now:) (BREAKING")

    def test_parameter_without_default_added_fails(self):
        narrowed = symbol("s:3Lib7ServiceV6finishyySbF", "Service.finish(_:now:)", "swift.method",
                          "func finish(_ response: Response, now: Date, commit: () -> Bool) -> Bool")
        self.assertFails(self.check([s for s in BASE if s is not FINISH] + [narrowed]), "changed: Service.finish(_:now:) (BREAKING")

    def test_same_declaration_under_another_identifier_passes(self):
        # Foundation's Date is mangled in FoundationEssentials on Linux, Foundation on macOS.
        remangled = symbol("s:3Lib7ServiceV5startyy10Foundation4DateVF", "Service.start(now:)", "swift.method",
                           "func start(now: Date) -> Options")
        self.assertPasses(self.check([s for s in BASE if s is not START] + [remangled]), "0 added, 0 source-compatible, 0 breaking")

    def test_printing_differences_pass(self):
        # Qualified types, a parameter's own name and a closure's `_ name:` are how the compiler
        # or an author happens to print it, not what a caller writes.
        printed = symbol(START["identifier"]["precise"], "Service.start(now:)", "swift.method",
                         "func start(now when: Foundation.Date) -> Lib.Options")
        self.assertPasses(self.check([s for s in BASE if s is not START] + [printed]), "0 added, 0 source-compatible, 0 breaking")

    def test_enum_case_added_fails(self):
        case_b = symbol("s:3Lib4KindO1byA2CmF", "Kind.b", "swift.enum.case", "case b")
        self.assertFails(self.check(BASE + [case_b]), "case added to a public enum: Kind.b (BREAKING")

    def test_protocol_requirement_added_fails_unless_defaulted(self):
        put = symbol("s:3Lib5StoreP3putyyF", "Store.put(_:)", "swift.method", "func put(_ id: [UInt8]) async throws")
        requirement = {"kind": "requirementOf", "source": "s:3Lib5StoreP3putyyF", "target": "s:3Lib5StoreP"}
        self.assertFails(self.check(BASE + [put], BASE_RELATIONS + [requirement]), "protocol requirement added: Store.put(_:)")
        default = symbol("s:3Lib5StorePAAE3putyyF", "Store.put(_:)", "swift.method", "func put(_ id: [UInt8]) async throws")
        implements = {"kind": "defaultImplementationOf", "source": "s:3Lib5StorePAAE3putyyF", "target": "s:3Lib5StoreP3putyyF"}
        self.assertPasses(self.check(BASE + [put, default], BASE_RELATIONS + [requirement, implements]), "added: Store.put(_:)")

    def test_conformance_removed_fails(self):
        self.assertFails(self.check(BASE, BASE_RELATIONS[:1] + BASE_RELATIONS[2:]),
                         "conformance removed: Service (BREAKING", "Swift.Sendable")

    def test_no_changelog_fails_on_a_break(self):
        work = tempfile.mkdtemp(dir=self.folder.name)
        self.assertEqual(self.run_script(work, "--update", "--graphs", self.graphs(work, "old", BASE, BASE_RELATIONS)).returncode, 0)
        run = self.run_script(work, "--graphs", self.graphs(work, "new", BASE[1:], []), "--changelog", os.path.join(work, "missing.md"))
        self.assertFails(run, "removed: Service (BREAKING")


if __name__ == "__main__":
    unittest.main()
