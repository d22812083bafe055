/* The commit of a tarball made by `git archive` (export-subst in .gitattributes); in a clone
   the placeholder stays, and scripts/stamp-version.sh's scand_commit.h names the commit. */
#define SCAND_ARCHIVE_COMMIT "$Format:%h$"
