// postinstall: prepares the PGlite initdb template (src/db/pglite-template.ts). Never fails the install.
try {
  const { writeTemplate } = await import('../src/db/write-template.ts');
  await writeTemplate();
} catch (error) {
  console.warn(`kontor: no PGlite template prepared (${(error as Error).message}); new data folders run initdb instead`);
}
