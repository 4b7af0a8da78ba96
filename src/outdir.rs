//! The output folder (DESIGN.md, "Output contract"): every command writes its files through
//! an [`OutDir`], which
//! - holds a lock per set of files (a second run writing the same set into the same folder is
//!   refused while the first runs) and a short folder lock while it records or commits;
//! - checks before any work that the folder is writable and every file name fits;
//! - writes a set of files as a unit: every file is staged and synced first, then a journal
//!   names the renames, then they happen; a kill in between is rolled forward by the next
//!   command that opens the folder, so a reader finds all new files or all old ones;
//! - records which set wrote which file (`.ckptsim/owners.json`), and removes only files its
//!   own set wrote, never another set's or a file it did not write;
//! - leaves no temporary file behind: staged files of a killed run are removed when the
//!   folder is next opened.
//!
//! Its state lives in `OUT/.ckptsim/`, which ignores itself for git.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The folder inside an output folder that holds its locks, records and staged files.
pub const STATE_DIR: &str = ".ckptsim";

/// The longest path the operating system takes (Linux's PATH_MAX less its terminating NUL).
const MAX_PATH_BYTES: usize = 4095;

/// An output folder, opened: its state folder exists and staged files of killed runs are
/// gone. Sets are claimed with [`OutDir::claim`] before any work and written with
/// [`OutDir::commit`].
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    state: PathBuf,
    // Held for the life of the value: the OS releases them when the process ends, however it ends.
    claims: Vec<(String, File)>,
}

/// What a commit changed in the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The files written, in the order given.
    pub written: Vec<PathBuf>,
    /// The files of an earlier commit of the same set that this one does not have, removed.
    pub removed: Vec<PathBuf>,
}

/// A journal: the renames and removals that make one set's commit, written before any of them.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Journal {
    owner: String,
    /// (staged file in the owner's staging folder, final name in the output folder).
    renames: Vec<(String, String)>,
    /// Final names removed: files the owner wrote before that the new set does not have.
    removes: Vec<String>,
}

/// Which set wrote which file: final name → owner.
type Owners = BTreeMap<String, String>;

impl OutDir {
    /// Creates `dir` (and its parents) where missing, and its state folder; rolls forward the
    /// commits and removes the staged files that killed runs left. An `--out` that cannot be
    /// a folder or cannot be written is bad usage (exit 2), found before any work.
    pub fn open(dir: &Path) -> Result<OutDir> {
        let unusable = |message: String| Error::Output { path: dir.to_path_buf(), message };
        if let Some(existing) = dir.ancestors().filter(|a| !a.as_os_str().is_empty()).find(|a| a.exists())
            && !existing.is_dir()
        {
            return Err(unusable(format!(
                "{} exists and is not a folder; accepted is an output folder (created when missing)",
                existing.display()
            )));
        }
        let state = dir.join(STATE_DIR);
        let cannot_write = |e: std::io::Error| {
            unusable(format!("cannot write into it ({e}); accepted is an output folder this user can create files in"))
        };
        for sub in ["locks", "tmp"] {
            fs::create_dir_all(state.join(sub)).map_err(cannot_write)?;
        }
        let ignore = state.join(".gitignore");
        if !ignore.exists() {
            fs::write(&ignore, "# ckptsim's locks and records: nothing here is a result.\n*\n")
                .map_err(cannot_write)?;
        }
        let out = OutDir { dir: dir.to_path_buf(), state, claims: vec![] };
        out.recover()?;
        Ok(out)
    }

    /// The output folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The path of the file `name` in the output folder.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Claims the set `owner` (for example `run young-daly`) whose files may be `names`: takes
    /// its lock, refused while another process holds it; refuses a name that another set
    /// wrote (its file would be replaced) and a name the folder cannot hold. Bad usage (exit 2).
    pub fn claim(&mut self, owner: &str, names: &[String]) -> Result<()> {
        let lock = self.owner_lock(owner)?;
        let owners = {
            let _folder = self.folder_lock()?;
            self.read_owners()?
        };
        for name in names {
            if let Some(other) = owners.get(name).filter(|o| *o != owner) {
                return Err(Error::Output {
                    path: self.file(name),
                    message: format!(
                        "written by `{other}`, which `{owner}` would replace; accepted is another --out folder, or \
                         another name for one of the two (each set of results keeps its own files)"
                    ),
                });
            }
            self.check_name(owner, name)?;
        }
        self.claims.push((owner.to_string(), lock));
        Ok(())
    }

    /// Writes the set `owner` as a unit: `files` (final name, bytes) all replace their old
    /// versions, and the files of `may_remove` that an earlier commit of this set wrote but
    /// this one does not are removed. Either every change happens or none does; a kill in
    /// between is rolled forward by the next [`OutDir::open`].
    pub fn commit(&self, owner: &str, files: &[(String, Vec<u8>)], may_remove: &[String]) -> Result<Committed> {
        let _folder = self.folder_lock()?;
        let journal = self.prepare(owner, files, may_remove)?;
        self.apply(&journal)?;
        let _ = fs::remove_dir(self.staging(owner));
        Ok(Committed {
            written: files.iter().map(|(name, _)| self.file(name)).collect(),
            removed: journal.removes.iter().map(|name| self.file(name)).collect(),
        })
    }

    /// Stages `files` and writes the journal of their commit, changing nothing a reader sees;
    /// on an error nothing is left behind. The caller holds the folder lock.
    fn prepare(&self, owner: &str, files: &[(String, Vec<u8>)], may_remove: &[String]) -> Result<Journal> {
        self.check_claimed(owner);
        let staging = self.staging(owner);
        fs::create_dir_all(&staging).map_err(|source| Error::Io { path: staging.clone(), source })?;
        let staged = files.iter().try_for_each(|(name, bytes)| write_synced(&staging.join(name), bytes));
        if let Err(e) = staged {
            // The old set stays whole: nothing was renamed.
            let _ = clear_folder(&staging);
            return Err(e);
        }
        let owners = self.read_owners()?;
        // Another set may have taken a name since the claim (two new sets run at once).
        if let Some((name, other)) =
            files.iter().find_map(|(n, _)| owners.get(n).filter(|o| *o != owner).map(|o| (n, o)))
        {
            let _ = clear_folder(&staging);
            return Err(Error::Output {
                path: self.file(name),
                message: format!("written by `{other}` while `{owner}` ran; nothing of `{owner}` was written"),
            });
        }
        let removes: Vec<String> = may_remove
            .iter()
            .filter(|name| owners.get(*name).is_some_and(|o| o == owner) && !files.iter().any(|(n, _)| n == *name))
            .cloned()
            .collect();
        let journal = Journal {
            owner: owner.to_string(),
            renames: files.iter().map(|(name, _)| (name.clone(), name.clone())).collect(),
            removes,
        };
        let journal_path = self.journal_path(owner);
        let tmp = journal_path.with_extension("tmp");
        let text = serde_json::to_vec(&journal).expect("a journal is plain data");
        if let Err(e) = write_synced(&tmp, &text).and_then(|()| rename(&tmp, &journal_path)) {
            let _ = fs::remove_file(&tmp);
            let _ = clear_folder(&staging);
            return Err(e);
        }
        sync_folder(&self.state);
        Ok(journal)
    }

    /// Writes one file of the set `owner` atomically (staged, synced, renamed) and records it:
    /// saved progress, written again and again while a run goes on.
    pub fn write_file(&self, owner: &str, name: &str, bytes: &[u8]) -> Result<PathBuf> {
        self.check_claimed(owner);
        let staging = self.staging(owner);
        fs::create_dir_all(&staging).map_err(|source| Error::Io { path: staging.clone(), source })?;
        let staged = staging.join(name);
        if let Err(e) = write_synced(&staged, bytes) {
            let _ = fs::remove_file(&staged);
            return Err(e);
        }
        let path = self.file(name);
        let _folder = self.folder_lock()?;
        let mut owners = self.read_owners()?;
        if owners.get(name).map(String::as_str) != Some(owner) {
            owners.insert(name.to_string(), owner.to_string());
            self.write_owners(&owners)?;
        }
        rename(&staged, &path)?;
        Ok(path)
    }

    /// Removes the file `name` of the set `owner` where this set wrote it (a file it did not
    /// write stays); says whether it removed one.
    pub fn remove_file(&self, owner: &str, name: &str) -> Result<bool> {
        self.check_claimed(owner);
        let _folder = self.folder_lock()?;
        let mut owners = self.read_owners()?;
        if owners.get(name).map(String::as_str) != Some(owner) {
            return Ok(false);
        }
        let path = self.file(name);
        // The set's other files reach the disk before this one leaves it.
        sync_folder(&self.dir);
        let removed = match fs::remove_file(&path) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(source) => return Err(Error::Io { path, source }),
        };
        owners.remove(name);
        self.write_owners(&owners)?;
        Ok(removed)
    }

    fn check_claimed(&self, owner: &str) {
        debug_assert!(self.claims.iter().any(|(o, _)| o == owner), "`{owner}` writes without its claim");
    }

    /// Whether the folder can hold `name`: a plain file name that the file system takes, on
    /// a path the OS takes.
    fn check_name(&self, owner: &str, name: &str) -> Result<()> {
        let path = self.file(name);
        let bad = |message: String| Error::Output { path: path.clone(), message };
        if name.is_empty() || name.contains(['/', '\0']) || Path::new(name).file_name() != Some(name.as_ref()) {
            return Err(bad("is not a plain file name; accepted is a name without `/`".into()));
        }
        let full = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
        if full.as_os_str().len() > MAX_PATH_BYTES {
            return Err(bad(format!(
                "is a path of {} bytes, more than the {MAX_PATH_BYTES} the system takes; accepted is a shorter \
                 --out or name",
                full.as_os_str().len()
            )));
        }
        // The staging folder is on the same file system: a file it takes, the folder takes.
        let staging = self.staging(owner);
        fs::create_dir_all(&staging).map_err(|source| Error::Io { path: staging.clone(), source })?;
        let probe = staging.join(name);
        match OpenOptions::new().write(true).create_new(true).open(&probe) {
            Ok(_) => fs::remove_file(&probe).map_err(|source| Error::Io { path: probe, source }),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(bad(format!(
                "cannot be created ({e}); accepted is a name of at most 255 bytes in a folder this user can write"
            ))),
        }
    }

    /// Rolls forward the journals of killed commits and clears the staging folders of sets
    /// no live process holds.
    fn recover(&self) -> Result<()> {
        let _folder = self.folder_lock()?;
        let _ = fs::remove_file(self.state.join("owners.json.tmp"));
        let tmp = self.state.join("tmp");
        let entries = fs::read_dir(&tmp).map_err(|source| Error::Io { path: tmp.clone(), source })?;
        for entry in entries.flatten() {
            let key = entry.file_name().to_string_lossy().into_owned();
            let Ok(lock) = self.try_lock_key(&key) else { continue };
            let Some(_lock) = lock else { continue };
            let journal_path = self.state.join(format!("commit-{key}.json"));
            if let Ok(text) = fs::read(&journal_path)
                && let Ok(journal) = serde_json::from_slice::<Journal>(&text)
            {
                self.apply(&journal)?;
            }
            let _ = fs::remove_file(journal_path.with_extension("tmp"));
            clear_folder(&entry.path())?;
        }
        Ok(())
    }

    /// Carries out a journal (again, after a kill: a rename already done is skipped), records
    /// the set's files and removes the journal. The caller holds the folder lock.
    fn apply(&self, journal: &Journal) -> Result<()> {
        let staging = self.staging(&journal.owner);
        for (staged, name) in &journal.renames {
            let from = staging.join(staged);
            if from.exists() {
                rename(&from, &self.file(name))?;
            }
        }
        for name in &journal.removes {
            let path = self.file(name);
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(Error::Io { path, source }),
            }
        }
        sync_folder(&self.dir);
        let mut owners = self.read_owners()?;
        for name in &journal.removes {
            owners.remove(name);
        }
        for (_, name) in &journal.renames {
            owners.insert(name.clone(), journal.owner.clone());
        }
        self.write_owners(&owners)?;
        let path = self.journal_path(&journal.owner);
        fs::remove_file(&path).map_err(|source| Error::Io { path, source })
    }

    fn read_owners(&self) -> Result<Owners> {
        let path = self.state.join("owners.json");
        match fs::read(&path) {
            // A damaged record names no owner: nothing is removed for it, nothing refused.
            Ok(text) => Ok(serde_json::from_slice(&text).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Owners::new()),
            Err(source) => Err(Error::Io { path, source }),
        }
    }

    fn write_owners(&self, owners: &Owners) -> Result<()> {
        let path = self.state.join("owners.json");
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_vec_pretty(owners).expect("a map of strings");
        write_synced(&tmp, &text)?;
        rename(&tmp, &path)
    }

    /// The key of a set in the state folder's file names: a hash of its owner name, which may
    /// be longer than a file name can be.
    fn key(owner: &str) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in owner.as_bytes() {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    fn staging(&self, owner: &str) -> PathBuf {
        self.state.join("tmp").join(Self::key(owner))
    }

    fn journal_path(&self, owner: &str) -> PathBuf {
        self.state.join(format!("commit-{}.json", Self::key(owner)))
    }

    /// The folder lock, held while records are read or changed: short, so others wait.
    fn folder_lock(&self) -> Result<File> {
        let path = self.state.join("lock");
        let file = lock_file(&path)?;
        file.lock().map_err(|source| Error::Io { path, source })?;
        Ok(file)
    }

    /// The lock of the set `owner`, held while its command runs; refused if another process
    /// holds it.
    fn owner_lock(&self, owner: &str) -> Result<File> {
        let key = Self::key(owner);
        match self.try_lock_key(&key)? {
            Some(mut file) => {
                // Who holds it, for the message of the next one refused.
                let _ = file.set_len(0).and_then(|()| writeln!(file, "{} {owner}", std::process::id()));
                Ok(file)
            }
            None => {
                let holder = fs::read_to_string(self.state.join("locks").join(&key)).unwrap_or_default();
                let pid = holder.split_whitespace().next().unwrap_or("?").to_string();
                Err(Error::Output {
                    path: self.dir.clone(),
                    message: format!(
                        "another ckptsim (process {pid}) is writing `{owner}` into this folder; accepted is another \
                         --out folder, or the same command once it has finished"
                    ),
                })
            }
        }
    }

    /// The lock of the set with key `key`, or `None` while another process holds it.
    fn try_lock_key(&self, key: &str) -> Result<Option<File>> {
        let path = self.state.join("locks").join(key);
        let file = lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(source)) => Err(Error::Io { path, source }),
        }
    }
}

fn lock_file(path: &Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })
}

/// Writes `bytes` to a new file at `path` (readable by others, like any result) and syncs it.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
    let mut file = options.open(path).map_err(io)?;
    file.write_all(bytes).map_err(io)?;
    file.sync_all().map_err(io)
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    fs::rename(from, to).map_err(|source| Error::Io { path: to.to_path_buf(), source })
}

/// Syncs a folder's entries (renames, removals) to the disk where the system can (Windows
/// cannot open a folder; there the order is the OS's).
fn sync_folder(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Removes every file in `dir` and the folder itself.
fn clear_folder(dir: &Path) -> Result<()> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io { path: dir.to_path_buf(), source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit killed after its journal is written is finished by the next open: the folder
    /// then holds the whole new set, never part of it.
    #[test]
    fn a_commit_killed_after_its_journal_is_rolled_forward_by_the_next_open() {
        let tmp = tempfile::tempdir().unwrap();
        let names = ["a.csv".to_string(), "a.json".to_string(), "a-causes.csv".to_string()];
        let mut out = OutDir::open(tmp.path()).unwrap();
        out.claim("run a", &names).unwrap();
        let old: Vec<(String, Vec<u8>)> = names.iter().map(|n| (n.clone(), b"old".to_vec())).collect();
        out.commit("run a", &old, &names).unwrap();
        let new = vec![(names[0].clone(), b"new csv".to_vec()), (names[1].clone(), b"new json".to_vec())];
        {
            let _folder = out.folder_lock().unwrap();
            out.prepare("run a", &new, &names).unwrap();
        }
        // Killed here: nothing renamed yet, the old set whole.
        assert_eq!(fs::read(tmp.path().join("a.csv")).unwrap(), b"old");
        drop(out);
        let out = OutDir::open(tmp.path()).unwrap();
        assert_eq!(fs::read(tmp.path().join("a.csv")).unwrap(), b"new csv");
        assert_eq!(fs::read(tmp.path().join("a.json")).unwrap(), b"new json");
        assert!(!tmp.path().join("a-causes.csv").exists());
        assert!(!out.journal_path("run a").exists());
        let owners = out.read_owners().unwrap();
        assert_eq!(owners.keys().collect::<Vec<_>>(), ["a.csv", "a.json"]);
        assert_eq!(fs::read_dir(out.state.join("tmp")).unwrap().count(), 0);
    }

    /// A set claimed by a live process is left alone: its staged files are not removed.
    #[test]
    fn staged_files_of_a_live_set_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let mut out = OutDir::open(tmp.path()).unwrap();
        out.claim("run b", &["b.csv".to_string()]).unwrap();
        let staged = out.staging("run b").join("b.csv");
        fs::create_dir_all(staged.parent().unwrap()).unwrap();
        fs::write(&staged, "half").unwrap();
        let mut other = OutDir::open(tmp.path()).unwrap();
        assert!(staged.exists());
        let refused = other.claim("run b", &["b.csv".to_string()]).unwrap_err().to_string();
        assert!(refused.contains("another ckptsim"), "{refused}");
    }
}
