/** What the CLI talks to: its output streams, its environment, and what a command may need from the terminal. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Flushed last when `quarry start` shuts down. */
  telemetry?: { shutdown(): Promise<void> };
  /** Reads a secret (a password) without echoing it; `quarry user passwd` needs it. */
  readSecret?: (prompt: string) => Promise<string>;
  /** stderr is a terminal: long commands draw a progress bar there instead of printing lines. */
  interactive?: boolean;
}
