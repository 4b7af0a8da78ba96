//! The docs: every relative link and every file they cite exists, the README stays a first
//! page, and every `MODELS.md §N` the source cites is a section of `docs/models.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::root;

/// The README is a first page, not a manual (issue #32).
const README_MAX_LINES: usize = 250;

/// A cited path that starts with one of these is a file or folder of this repository.
const REPO_PREFIXES: [&str; 7] = ["scenarios/", "results/", "src/", "tests/", "benches/", "docs/", ".ci/"];

/// What marks a cited path as a pattern to fill in, not a file: `<name>`, `{csv,svg}`, `…`,
/// `$VAR`.
const PLACEHOLDER_MARKS: [&str; 7] = ["<", ">", "{", "}", "…", "...", "$"];

/// Characters around a path in prose or a command that are not part of it (a leading `.` is:
/// `.ci/run`).
const NOT_IN_PATH: &[char] = &['"', '\'', '`', ',', ';', ':', '(', ')', '[', ']', '|'];

/// The Markdown files of the docs: the README, the changelog and every chapter of the guide.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![root("README.md"), root("CHANGELOG.md")];
    let mut chapters: Vec<PathBuf> = fs::read_dir(root("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("docs/ is readable").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    assert!(!chapters.is_empty(), "docs/ has no chapter");
    files.extend(chapters);
    files
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn shown(path: &Path) -> String {
    path.strip_prefix(root("")).unwrap_or(path).display().to_string()
}

/// A Markdown text split into its prose (fenced blocks blanked out, line numbers kept) and
/// the contents of its fenced code blocks.
struct Parts {
    prose: String,
    fenced: String,
}

fn split_fences(text: &str) -> Parts {
    let (mut prose, mut fenced) = (String::new(), String::new());
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            prose.push('\n');
            continue;
        }
        if in_fence {
            fenced.push_str(line);
            fenced.push('\n');
            prose.push('\n');
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    Parts { prose, fenced }
}

/// The inline code spans of `prose` (they may run over a line break), and the prose with them
/// blanked out, so that a link shown as code is not taken for a link.
fn code_spans(prose: &str) -> (Vec<String>, String) {
    let chars: Vec<char> = prose.chars().collect();
    let (mut spans, mut rest) = (Vec::new(), String::new());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            rest.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        let open_end = i + run;
        let close = (open_end..chars.len())
            .find(|&j| chars[j..].iter().take_while(|&&c| c == '`').count() == run && (j == 0 || chars[j - 1] != '`'));
        match close {
            Some(j) => {
                spans.push(chars[open_end..j].iter().collect());
                rest.extend(chars[i..j + run].iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
                i = j + run;
            }
            None => {
                rest.extend(&chars[i..open_end]);
                i = open_end;
            }
        }
    }
    (spans, rest)
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings, with GitHub's `-1`, `-2` for repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in split_fences(text).prose.lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim());
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

/// The targets of the inline links and images `[text](target)` of `prose` (code blanked out),
/// with their line numbers.
fn link_targets(prose: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// What is wrong with the links of `doc`, whose text is `text`: a relative target that is not
/// a file or folder (relative to the doc's folder), or an anchor its Markdown target lacks.
fn link_problems(doc: &Path, text: &str) -> Vec<String> {
    let (_, prose) = code_spans(&split_fences(text).prose);
    let folder = doc.parent().expect("a doc has a folder");
    let mut problems = Vec::new();
    for (line, target) in link_targets(&prose) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() { doc.to_path_buf() } else { folder.join(path) };
        let at = format!("{}:{line}: link `{target}`", shown(doc));
        if !file.exists() {
            problems.push(format!("{at}: no such file {}", shown(&file)));
            continue;
        }
        if let Some(anchor) = anchor
            && file.extension().is_some_and(|x| x == "md")
            && !anchors(&read(&file)).contains(anchor)
        {
            problems.push(format!("{at}: {} has no heading with that anchor", shown(&file)));
        }
    }
    problems
}

/// The repository paths that `text` cites in code (inline spans and fenced blocks): every
/// word that, stripped of quotes and punctuation, starts with one of [`REPO_PREFIXES`].
fn cited_paths(text: &str) -> BTreeSet<String> {
    let parts = split_fences(text);
    let (spans, _) = code_spans(&parts.prose);
    let words = spans.iter().flat_map(|s| s.split_whitespace()).chain(parts.fenced.split_whitespace());
    words
        .flat_map(|w| w.split('='))
        .map(|w| w.trim_matches(NOT_IN_PATH).trim_end_matches('.'))
        .filter(|w| REPO_PREFIXES.iter().any(|p| w.starts_with(p)))
        .map(str::to_string)
        .collect()
}

/// Whether `name` matches the glob `pattern` (`*` any run of characters, `?` one).
fn wildcard(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|k| wildcard(rest, &name[k..])),
        Some((&p, rest)) => name.split_first().is_some_and(|(&c, tail)| (p == '?' || p == c) && wildcard(rest, tail)),
    }
}

/// Whether some file or folder under `base` matches the glob `pattern`, component by
/// component (a `*` does not cross a `/`).
fn glob_matches(base: &Path, pattern: &str) -> bool {
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    let Some((first, rest)) = parts.split_first() else { return base.exists() };
    if !first.contains(['*', '?']) {
        let next = base.join(first);
        return next.exists() && glob_matches(&next, &rest.join("/"));
    }
    let want: Vec<char> = first.chars().collect();
    let Ok(entries) = fs::read_dir(base) else { return false };
    entries.filter_map(|e| e.ok()).any(|e| {
        let name: Vec<char> = e.file_name().to_string_lossy().chars().collect();
        wildcard(&want, &name) && glob_matches(&e.path(), &rest.join("/"))
    })
}

/// What is wrong with the paths `doc` cites: a file that does not exist, or a glob that
/// matches none. Patterns with placeholders are left alone.
fn citation_problems(doc: &Path, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for path in cited_paths(text) {
        if PLACEHOLDER_MARKS.iter().any(|m| path.contains(m)) {
            continue;
        }
        let found = if path.contains(['*', '?']) { glob_matches(&root(""), &path) } else { root(&path).exists() };
        if !found {
            problems.push(format!("{}: cites `{path}`, which is not in the repository", shown(doc)));
        }
    }
    problems
}

fn assert_none(problems: Vec<String>) {
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn every_relative_link_resolves() {
    assert_none(doc_files().iter().flat_map(|d| link_problems(d, &read(d))).collect());
}

#[test]
fn every_cited_repository_file_exists() {
    let docs = doc_files();
    let cited: BTreeSet<String> = docs.iter().flat_map(|d| cited_paths(&read(d))).collect();
    for known in ["scenarios/young-daly.toml", "results/regenerate.sh", "tests/suite/exact.rs", ".ci/slurm-test.sh"] {
        assert!(cited.contains(known), "the docs no longer cite `{known}`, or the path scan misses it");
    }
    assert_none(docs.iter().flat_map(|d| citation_problems(d, &read(d))).collect());
}

#[test]
fn the_checks_catch_a_broken_link_and_a_missing_file() {
    let doc = root("docs/README.md");
    let text = "# Title\n\n[ok](models.md#1-exponential-failures) [gone](nowhere.md) \
                [bad anchor](models.md#no-such-section) `[shown](as-code.md)`\n\n\
                Run `ckptsim run scenarios/no-such.toml` on `results/*.nothing`; \
                `scenarios/<file>.toml` is a pattern.\n\n```sh\nbash .ci/no-such-script\n```\n";
    let links = link_problems(&doc, text);
    assert_eq!(links.len(), 2, "{links:#?}");
    assert!(links[0].contains("nowhere.md") && links[1].contains("no-such-section"), "{links:#?}");
    let files = citation_problems(&doc, text);
    assert_eq!(files.len(), 3, "{files:#?}");
    for missing in ["scenarios/no-such.toml", "results/*.nothing", ".ci/no-such-script"] {
        assert!(files.iter().any(|p| p.contains(missing)), "{missing} not reported: {files:#?}");
    }
    assert!(
        glob_matches(&root(""), "benches/*.rs") && glob_matches(&root(""), "results/optimize/two-level-optimize.*")
    );
}

#[test]
fn readme_is_at_most_250_lines() {
    let lines = read(&root("README.md")).lines().count();
    assert!(lines <= README_MAX_LINES, "README.md has {lines} lines; at most {README_MAX_LINES}: move detail to docs/");
}

#[test]
fn the_guide_index_lists_every_chapter() {
    let index = root("docs/README.md");
    let (_, prose) = code_spans(&split_fences(&read(&index)).prose);
    let linked: BTreeSet<String> = link_targets(&prose).into_iter().map(|(_, t)| t).collect();
    let missing: Vec<String> = doc_files()
        .iter()
        .filter(|d| d.parent() == index.parent() && **d != index)
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| !linked.contains(name))
        .collect();
    assert!(missing.is_empty(), "docs/README.md does not link {missing:?}");
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a readable folder").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The sections `text` cites as `MODELS.md §N`, also where a comment's line break falls
/// between the two (`MODELS.md` at a line's end, `/// §4` on the next).
fn cited_sections(text: &str) -> Vec<u32> {
    text.match_indices("MODELS.md")
        .filter_map(|(at, m)| {
            let after =
                text[at + m.len()..].trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '/' | '!' | '*'));
            let digits: String = after.strip_prefix('§')?.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

#[test]
fn every_models_section_cited_in_src_exists() {
    let models = read(&root("docs/models.md"));
    let sections: BTreeSet<u32> = models
        .lines()
        .filter_map(|l| l.strip_prefix("## §"))
        .filter_map(|l| l.split('.').next()?.parse().ok())
        .collect();
    assert_eq!(sections, (1..=9).collect::<BTreeSet<u32>>(), "docs/models.md keeps the sections §1–§9");
    let mut files = Vec::new();
    rust_files(&root("src"), &mut files);
    let mut cited = 0;
    let mut problems = Vec::new();
    for file in &files {
        for n in cited_sections(&read(file)) {
            cited += 1;
            if !sections.contains(&n) {
                problems.push(format!("{} cites MODELS.md §{n}, which docs/models.md lacks", shown(file)));
            }
        }
    }
    assert!(cited > 0, "no `MODELS.md §N` found in src/: the scan is broken");
    assert_none(problems);
    assert_eq!(cited_sections("(MODELS.md\n    /// §4): and MODELS.md §12, MODELS.md"), vec![4, 12]);
}

/// The commands of the README's `sh` blocks that a reader runs as printed: not the test suite,
/// the install or CI (each tested on its own), with `cargo run --release --` read as the
/// built `ckptsim`. `data`: those on `../shared/data`, or the others.
fn readme_commands(data: bool) -> Vec<String> {
    let text = read(&root("README.md"));
    let mut commands = vec![];
    let mut in_sh = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        let command = line.split(" # ").next().unwrap_or_default().trim();
        let skipped = ["cargo test", "cargo install", "bash .ci/run"].iter().any(|s| command.starts_with(s));
        if !in_sh || command.is_empty() || skipped || command.contains("../shared/") != data {
            continue;
        }
        commands.push(command.replace("cargo run --release --", "ckptsim"));
    }
    commands
}

/// Runs `commands` as printed, in a clone of the repository beside `../shared` (linked where
/// it exists), with `ckptsim` the binary under test; then no tracked file may have changed
/// and no untracked one appeared.
fn leave_a_clone_clean(commands: &[String]) {
    let tmp = tempfile::tempdir().unwrap();
    let clone = tmp.path().join("main");
    let git = |args: &[&str], dir: &Path| {
        let o = std::process::Command::new("git").args(args).current_dir(dir).output().expect("git runs");
        assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    git(&["clone", "--quiet", root("").to_str().unwrap(), clone.to_str().unwrap()], tmp.path());
    if root("../shared").exists() {
        std::os::unix::fs::symlink(root("../shared"), tmp.path().join("shared")).unwrap();
    }
    let bin = tmp.path().join("bin");
    fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ckptsim"), bin.join("ckptsim")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    for command in commands {
        let o = std::process::Command::new("bash")
            .args(["-c", command])
            .current_dir(&clone)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(o.status.success(), "{command}: {}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(git(&["status", "--porcelain", "--untracked-files=all"], &clone), "", "after {commands:?}");
}

/// The README's commands change nothing a clone tracks (DESIGN.md, "Output contract").
#[test]
fn the_readmes_commands_leave_a_clone_clean() {
    let commands = readme_commands(false);
    assert!(commands.iter().any(|c| c.starts_with("ckptsim run scenarios/young-daly.toml")), "{commands:?}");
    leave_a_clone_clean(&commands);
}

/// As above, for the README's commands on the shared data.
#[test]
#[ignore = "needs ../shared/data"]
fn the_readmes_commands_on_the_shared_data_leave_a_clone_clean() {
    super::shared_data(super::LANL_LOG);
    let commands = readme_commands(true);
    assert!(!commands.is_empty());
    leave_a_clone_clean(&commands);
}
