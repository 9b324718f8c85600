import { ledgerSide } from './side';

ledgerSide('second');
