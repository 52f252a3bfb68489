import { describe, expect, it } from 'vitest';
import { stem, tokenize } from '../../src/query/tokenize.js';

describe('tokenize', () => {
  it.each([
    ['listCalendarEvents', ['list', 'calendar', 'event']],
    ['github.create_pull_request', ['github', 'creat', 'pull', 'request']],
    ['HTTPRequest-id', ['http', 'request', 'id']],
    ['List the events on my calendar', ['list', 'event', 'calendar']],
    ['', []],
    ['the of and', []],
  ])('%j', (text, terms) => {
    expect(tokenize(text)).toEqual(terms);
  });

  it.each([
    ['branches', 'branch'],
    ['queries', 'query'],
    ['lists', 'list'],
    ['listing', 'list'],
    ['listed', 'list'],
    ['stopped', 'stop'],
    ['create', 'creat'],
    ['creates', 'creat'],
    ['created', 'creat'],
    ['creating', 'creat'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['string', 'string'],
    ['need', 'need'],
    ['speed', 'speed'],
    ['pull', 'pull'],
    ['gas', 'gas'],
  ])('stem(%s) = %s', (word, stemmed) => {
    expect(stem(word)).toBe(stemmed);
  });

  it('a name and the way people ask for it meet', () => {
    expect(tokenize('calendar.list_events').sort()).toEqual(tokenize('listing calendar events').sort());
  });
});
