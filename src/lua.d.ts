// A Redis script imported from its .lua file is the file's text: esbuild's text loader in the bundle
// (bin/build.mjs), a plugin under vitest (vitest.config.ts), a module hook under tsx
// (bin/source-loader.mjs).
declare module '*.lua' {
  const text: string;
  export default text;
}
