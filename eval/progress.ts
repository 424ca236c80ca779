/**
 * A one-line progress bar on stderr. On a terminal it redraws in place; otherwise
 * (CI logs) it prints one line per finished step.
 */
export class ProgressBar {
  private done = 0;
  private readonly tty: boolean;

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly width = 28,
  ) {
    this.tty = Boolean(stream.isTTY);
  }

  /** Shows what is running now, without counting it done. */
  start(label: string): void {
    if (this.tty) this.draw(label);
  }

  /** Counts one step done. */
  tick(label: string): void {
    this.done = Math.min(this.total, this.done + 1);
    if (this.tty) this.draw(label);
    else this.stream.write(`${this.bar()} ${label}\n`);
  }

  /** Ends the line. */
  finish(): void {
    if (this.tty) this.stream.write("\n");
  }

  private bar(): string {
    const filled = this.total === 0 ? this.width : Math.round((this.done / this.total) * this.width);
    return `[${"█".repeat(filled)}${"░".repeat(this.width - filled)}] ${String(this.done).padStart(String(this.total).length)}/${this.total}`;
  }

  private draw(label: string): void {
    const columns = this.stream.columns ?? 100;
    const line = `${this.bar()} ${label}`.slice(0, Math.max(10, columns - 1));
    this.stream.write(`\r${line.padEnd(Math.max(10, columns - 1))}`);
  }
}
