export function ok(): number {
  return 1;
}

export function broken(a: number, {
  return a +;
}

export class Later {
  run(): void {}
}
