export * from './host-intervals';
export * from './load';
