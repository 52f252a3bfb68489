// A `module` provider: toolcap imports this file and calls the named export
// with the checked arguments and a context ({ signal, callId, attempt, ... }).
export function reverse({ text }) {
  return { reversed: [...text].reverse().join('') };
}
