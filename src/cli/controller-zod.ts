// Zod without the parsers it writes, for the controller: imported first by src/cli/controller.ts, the controller bundle's
// entry, so that it is set before the API's schemas are made (zod decides for each object schema as it is made).
//
// Zod writes a parser for an object schema the first time it parses with it (`new Function`). With V8's optimizing
// compilers off (controllerV8Flags in heap.ts) that parser runs interpreted like the general one, and writing and
// compiling it made a process's first validation of a window 7.4-11.8 ms against 4.0-7.2 ms without (the controller's
// V8 flags, eight runs each); the next ones take 0.2-0.6 ms either way. The same checks run and give the same errors.
// The bundle has a zod of its own: the CLI's other commands and the Config Service keep theirs.

import { z } from "zod";

z.config({ jitless: true });
