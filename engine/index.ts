/**
 * The engine's public surface for sim/ and properties/ (DESIGN.md: they import only this file
 * and engine/api/). Grows with each issue.
 */
export * from './api/index.ts';
